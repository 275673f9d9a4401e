import { accessSync, constants, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { GllamError } from "../engine/errors.ts";
import type { Domain, Problem } from "./pddl-types.ts";
import { parsePlanText } from "./plan-text.ts";
import { noStats, type PlanResult, type PlanStatus } from "./planner.ts";
import { runProcessGroup } from "./process-group.ts";
import { validatePlan } from "./validate.ts";

/** The seed's default install location. */
export const DEFAULT_FAST_DOWNWARD = join(homedir(), "Projects/downward/fast-downward.py");

export type FastDownwardOptions = {
  /** fast-downward.py; default $FAST_DOWNWARD, else ~/Projects/downward/fast-downward.py. */
  path?: string;
  /** A driver alias such as lama-first (default, when `search` is not given). */
  alias?: string;
  /** A search component such as "astar(blind())", instead of an alias. */
  search?: string;
  timeoutMs?: number;
};

export function resolveFastDownwardPath(explicit?: string): string {
  return resolve(explicit ?? process.env.FAST_DOWNWARD ?? DEFAULT_FAST_DOWNWARD);
}

export function isFastDownwardAvailable(explicit?: string): boolean {
  const path = resolveFastDownwardPath(explicit);
  return existsSync(path) && statSync(path).isFile();
}

/** Fast Downward's documented exit codes that mean "no plan" rather than a failure. */
const EXIT_STATUS: Record<number, { status: PlanStatus; reason: string }> = {
  10: { status: "unsolvable", reason: "Fast Downward's translator proved the task unsolvable" },
  11: { status: "unsolvable", reason: "Fast Downward's search proved the task unsolvable" },
  12: { status: "unsolved", reason: "Fast Downward's incomplete search found no plan" },
  22: { status: "unsolved", reason: "memory limit: Fast Downward ran out of memory" },
  23: { status: "unsolved", reason: "time limit: Fast Downward's own time limit was reached" },
  24: { status: "unsolved", reason: "Fast Downward ran out of time and memory" },
};

function commandLine(path: string, planFile: string, options: FastDownwardOptions, domainFile: string, problemFile: string): string[] {
  let executable = true;
  try {
    accessSync(path, constants.X_OK);
  } catch {
    executable = false;
  }
  const driver = executable ? [path] : ["python3", path];
  const config = options.search ? [] : ["--alias", options.alias ?? "lama-first"];
  const component = options.search ? ["--search", options.search] : [];
  return [...driver, ...config, "--plan-file", planFile, resolve(domainFile), resolve(problemFile), ...component];
}

/** The last plan written: sas_plan, or the highest sas_plan.N of an anytime configuration. */
function lastPlanFile(dir: string): string | undefined {
  const names = readdirSync(dir).filter((n) => /^sas_plan(\.\d+)?$/.test(n));
  names.sort((a, b) => Number(a.split(".")[1] ?? 0) - Number(b.split(".")[1] ?? 0));
  return names.length > 0 ? join(dir, names.at(-1)!) : undefined;
}

/**
 * Runs Fast Downward on the two files in a temp folder of its own, kills its whole process group
 * at the time limit, and validates the plan it writes with our own simulator.
 */
export async function runFastDownward(domainFile: string, problemFile: string, domain: Domain, problem: Problem, options: FastDownwardOptions = {}): Promise<PlanResult> {
  const path = resolveFastDownwardPath(options.path);
  if (!isFastDownwardAvailable(options.path)) {
    throw new GllamError("E_NOT_FOUND", `Fast Downward not found at ${path} (set FAST_DOWNWARD to fast-downward.py, or use --planner native)`);
  }
  const planner = `fast-downward (${options.search ?? options.alias ?? "lama-first"})`;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const dir = mkdtempSync(join(tmpdir(), "gllam-fd-"));
  const stats = noStats();
  const result = (status: PlanStatus, reason: string, plan: PlanResult["plan"] = [], cost = 0): PlanResult => ({ status, planner, plan, cost, reason, stats });
  try {
    const run = await runProcessGroup(commandLine(path, join(dir, "sas_plan"), options, domainFile, problemFile), { cwd: dir, timeoutMs });
    stats.totalMs = stats.searchMs = run.ms;
    if (run.timedOut) return result("unsolved", `time limit: Fast Downward was stopped after ${timeoutMs / 1000} s`);
    const planFile = lastPlanFile(dir);
    if (!planFile) {
      const known = run.exitCode === null ? undefined : EXIT_STATUS[run.exitCode];
      if (known) return result(known.status, known.reason);
      const tail = (run.stderr.trim() || run.stdout.trim()).split("\n").slice(-3).join(" | ");
      throw new GllamError("E_PLANNER", `Fast Downward (${path}) exited with code ${run.exitCode} and wrote no plan${tail ? `: ${tail}` : ""}`);
    }
    const plan = parsePlanText(readFileSync(planFile, "utf8"), planFile);
    const check = validatePlan(domain, problem, plan);
    return check.valid ? result("solved", "", plan, check.cost) : result("invalid", `step ${check.step}: ${check.reason}`, plan);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
