import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { GllamError } from "../engine/errors.ts";
import { selfCommand } from "./args.ts";
import { isFastDownwardAvailable, resolveFastDownwardPath, runFastDownward } from "../planning/fast-downward.ts";
import { parsePlanText } from "../planning/plan-text.ts";
import type { PlanStatus } from "../planning/planner.ts";
import { runProcessGroup } from "../planning/process-group.ts";
import { loadTask } from "../planning/solve.ts";
import { validatePlan } from "../planning/validate.ts";

export const BENCH_PLANNERS = ["native", "bfs", "fast-downward", "all"] as const;
export type BenchPlanner = (typeof BENCH_PLANNERS)[number];

export type Instance = { domain: string; domainFile: string; problemFile: string };

export type InstanceRun = { domain: string; problem: string; status: PlanStatus | "error"; seconds: number; plan_length: number | null; cost: number | null; reason: string };

export type DomainFigures = { instances: number; solved: number; median_s: number | null; median_plan_length: number | null };

export type PlannerReport = {
  planner: string;
  instances: number;
  solved: number;
  invalid_plans: number;
  by_domain: Record<string, DomainFigures>;
  runs: InstanceRun[];
};

export type PlannerBenchReport = PlannerReport | { suite: string; timeout_s: number; planners: Record<string, PlannerReport | { skipped: string }> };

/** DIR/<domain>/domain.pddl plus that folder's other *.pddl files, in name order. */
export function listSuite(suite: string): Instance[] {
  if (!existsSync(suite) || !statSync(suite).isDirectory()) throw new GllamError("E_NOT_FOUND", `no suite folder at ${suite}`);
  const instances = readdirSync(suite)
    .sort()
    .filter((d) => existsSync(join(suite, d, "domain.pddl")))
    .flatMap((d) =>
      readdirSync(join(suite, d))
        .filter((f) => f.endsWith(".pddl") && f !== "domain.pddl")
        .sort()
        .map((f) => ({ domain: d, domainFile: join(suite, d, "domain.pddl"), problemFile: join(suite, d, f) })),
    );
  if (instances.length === 0) throw new GllamError("E_BAD_INPUT", `${suite} holds no <domain>/domain.pddl with problem files`);
  return instances;
}

const median = (values: number[]): number | null => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const round = (x: number | null, digits: number) => (x === null ? null : Number(x.toFixed(digits)));

/**
 * The native planners run as `gllam plan` subprocesses (memory and crashes stay isolated, a hard
 * kill backs up the planner's own limit); the plan they print is validated again here.
 */
async function runNative(instance: Instance, planner: "native" | "bfs", timeoutS: number): Promise<InstanceRun> {
  const argv = [...selfCommand(), "plan", instance.domainFile, instance.problemFile, "--planner", planner, "--timeout", String(timeoutS)];
  const run = await runProcessGroup(argv, { timeoutMs: timeoutS * 1000 + 5000 });
  const base = { domain: instance.domain, problem: basename(instance.problemFile), seconds: round(run.ms / 1000, 3)! };
  if (run.timedOut) return { ...base, status: "unsolved", plan_length: null, cost: null, reason: "killed at the time limit" };
  const reason = run.stderr.trim().split("\n").at(-1) ?? "";
  if (run.exitCode === 1) return { ...base, status: /unsolvable/.test(reason) ? "unsolvable" : "unsolved", plan_length: null, cost: null, reason };
  if (run.exitCode !== 0) return { ...base, status: /invalid plan/.test(reason) ? "invalid" : "error", plan_length: null, cost: null, reason };
  const { domain, problem } = loadTask(instance.domainFile, instance.problemFile);
  const plan = parsePlanText(run.stdout, `${planner} output`);
  const check = validatePlan(domain, problem, plan);
  return check.valid
    ? { ...base, status: "solved", plan_length: plan.length, cost: check.cost, reason: "" }
    : { ...base, status: "invalid", plan_length: plan.length, cost: null, reason: `step ${check.step}: ${check.reason}` };
}

async function runFastDownwardInstance(instance: Instance, config: { alias?: string; search?: string }, timeoutS: number): Promise<InstanceRun> {
  const { domain, problem } = loadTask(instance.domainFile, instance.problemFile);
  const start = performance.now();
  const base = { domain: instance.domain, problem: basename(instance.problemFile) };
  try {
    const result = await runFastDownward(instance.domainFile, instance.problemFile, domain, problem, { ...config, timeoutMs: timeoutS * 1000 });
    const solved = result.status === "solved";
    return { ...base, status: result.status, seconds: round((performance.now() - start) / 1000, 3)!, plan_length: solved ? result.plan.length : null, cost: solved ? result.cost : null, reason: result.reason };
  } catch (error) {
    if (!(error instanceof GllamError) || error.code !== "E_PLANNER") throw error;
    return { ...base, status: "error", seconds: round((performance.now() - start) / 1000, 3)!, plan_length: null, cost: null, reason: error.message };
  }
}

/** Solved counts and medians (over solved instances) per domain. */
export function summarize(planner: string, runs: InstanceRun[]): PlannerReport {
  const by_domain: Record<string, DomainFigures> = {};
  for (const [domain, list] of Map.groupBy(runs, (r) => r.domain)) {
    const solved = list.filter((r) => r.status === "solved");
    by_domain[domain] = {
      instances: list.length,
      solved: solved.length,
      median_s: round(median(solved.map((r) => r.seconds)), 3),
      median_plan_length: median(solved.map((r) => r.plan_length!)),
    };
  }
  return {
    planner,
    instances: runs.length,
    solved: runs.filter((r) => r.status === "solved").length,
    invalid_plans: runs.filter((r) => r.status === "invalid").length,
    by_domain,
    runs,
  };
}

type Runner = { name: string; run: (instance: Instance) => Promise<InstanceRun> };

function runners(planner: BenchPlanner, timeoutS: number): { active: Runner[]; skipped: Record<string, string> } {
  const native: Runner[] = [
    { name: "native", run: (i) => runNative(i, "native", timeoutS) },
    { name: "bfs", run: (i) => runNative(i, "bfs", timeoutS) },
  ];
  const fd: Runner[] = [
    { name: "fast-downward lama-first", run: (i) => runFastDownwardInstance(i, { alias: "lama-first" }, timeoutS) },
    { name: "fast-downward astar(blind())", run: (i) => runFastDownwardInstance(i, { search: "astar(blind())" }, timeoutS) },
  ];
  if (planner === "native" || planner === "bfs") return { active: native.filter((r) => r.name === planner), skipped: {} };
  const why = `Fast Downward not found at ${resolveFastDownwardPath()} (set FAST_DOWNWARD)`;
  if (planner === "fast-downward") {
    if (!isFastDownwardAvailable()) throw new GllamError("E_NOT_FOUND", why);
    return { active: fd, skipped: {} };
  }
  if (isFastDownwardAvailable()) return { active: [...native, ...fd], skipped: {} };
  return { active: native, skipped: Object.fromEntries(fd.map((r) => [r.name, why])) };
}

/**
 * Runs every instance of a suite with the chosen planner(s), one at a time (timings stay honest on
 * a shared machine). A single planner gives one report; `all` and `fast-downward` give one per planner.
 */
export async function runPlannerBench(options: { suite: string; planner: BenchPlanner; timeoutS: number; onRun?: (planner: string, run: InstanceRun) => void }): Promise<PlannerBenchReport> {
  const instances = listSuite(options.suite);
  const { active, skipped } = runners(options.planner, options.timeoutS);
  const reports: Record<string, PlannerReport | { skipped: string }> = {};
  for (const runner of active) {
    const runs: InstanceRun[] = [];
    for (const instance of instances) {
      const run = await runner.run(instance);
      options.onRun?.(runner.name, run);
      runs.push(run);
    }
    reports[runner.name] = summarize(runner.name, runs);
  }
  for (const [name, why] of Object.entries(skipped)) reports[name] = { skipped: why };
  if (active.length === 1 && Object.keys(skipped).length === 0) return reports[active[0]!.name] as PlannerReport;
  return { suite: options.suite, timeout_s: options.timeoutS, planners: reports };
}

/** The Markdown table of a report: a row per domain, solved / instances, median seconds and plan length per planner. */
export function formatPlannerTable(report: PlannerBenchReport): string {
  const planners = "planners" in report ? report.planners : { [report.planner]: report };
  const ran = Object.entries(planners).filter((e): e is [string, PlannerReport] => "by_domain" in e[1]);
  const domains = [...new Set(ran.flatMap(([, r]) => Object.keys(r.by_domain)))];
  const cell = (f: DomainFigures | undefined) => (f ? `${f.solved}/${f.instances} · ${f.median_s ?? "–"} s · ${f.median_plan_length ?? "–"}` : "–");
  const lines = [`| domain | ${ran.map(([name]) => name).join(" | ")} |`, `|---|${ran.map(() => "---|").join("")}`];
  for (const d of domains) lines.push(`| ${d} | ${ran.map(([, r]) => cell(r.by_domain[d])).join(" | ")} |`);
  lines.push(`| **total** | ${ran.map(([, r]) => `**${r.solved}/${r.instances}**, ${r.invalid_plans} invalid`).join(" | ")} |`);
  const notes = Object.entries(planners).flatMap(([name, r]) => ("skipped" in r ? [`- ${name}: not run, ${r.skipped}`] : []));
  return `${lines.join("\n")}\n\nCells: solved/instances · median wall time of the solved instances · median plan length.\n${notes.length ? `${notes.join("\n")}\n` : ""}`;
}
