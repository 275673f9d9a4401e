import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GllamError } from "../engine/errors.ts";
import { isFastDownwardAvailable, runFastDownward, type FastDownwardOptions } from "./fast-downward.ts";
import { parseDomain, parseProblem } from "./parser.ts";
import type { Domain, Problem } from "./pddl-types.ts";
import { solveNative, type NativePlannerOptions, type PlanResult } from "./planner.ts";
import { writeDomain, writeProblem } from "./writer.ts";

export const PLANNER_CHOICES = ["native", "bfs", "fast-downward", "auto"] as const;
export type PlannerChoice = (typeof PLANNER_CHOICES)[number];

export type PlanFilesOptions = NativePlannerOptions & {
  /** native (default), bfs (the seed's breadth-first search), fast-downward, or auto (Fast Downward when installed, else native). */
  planner?: PlannerChoice;
  fastDownward?: Omit<FastDownwardOptions, "timeoutMs">;
};

export function readPddlFile(path: string): string {
  if (!existsSync(path)) throw new GllamError("E_NOT_FOUND", `no PDDL file at ${path}`);
  if (!statSync(path).isFile()) throw new GllamError("E_BAD_INPUT", `${path} is not a file`);
  return readFileSync(path, "utf8");
}

/** Reads and parses a domain and problem file; errors name file:line:col. */
export function loadTask(domainFile: string, problemFile: string): { domain: Domain; problem: Problem } {
  const domain = parseDomain(readPddlFile(domainFile), domainFile);
  return { domain, problem: parseProblem(readPddlFile(problemFile), domain, problemFile) };
}

/** Plans for two PDDL files with the chosen planner; every plan returned has been validated by simulation. */
export async function planFiles(domainFile: string, problemFile: string, options: PlanFilesOptions = {}): Promise<PlanResult> {
  const { domain, problem } = loadTask(domainFile, problemFile);
  if (usesFastDownward(options)) return runFastDownward(domainFile, problemFile, domain, problem, { ...options.fastDownward, timeoutMs: options.timeoutMs });
  return solveNative(domain, problem, nativeOptions(options));
}

const usesFastDownward = (options: PlanFilesOptions) =>
  options.planner === "fast-downward" || (options.planner === "auto" && isFastDownwardAvailable(options.fastDownward?.path));
const nativeOptions = (options: PlanFilesOptions): NativePlannerOptions => ({ ...options, search: options.planner === "bfs" ? "bfs" : options.search });

/** A task given as text (an MCP or HTTP caller has no files); `names` label it in errors (name:line:col). */
export type PddlTexts = { domain: string; problem: string; names?: { domain?: string; problem?: string } };

/** Plans for a domain and problem given as text; Fast Downward, which reads files, gets them in a folder of its own. */
export async function planTexts(task: PddlTexts, options: PlanFilesOptions = {}): Promise<PlanResult> {
  const names = { domain: task.names?.domain ?? "domain.pddl", problem: task.names?.problem ?? "problem.pddl" };
  const domain = parseDomain(task.domain, names.domain);
  const problem = parseProblem(task.problem, domain, names.problem);
  return solveTask(domain, problem, () => task, options);
}

/** Plans for a task built in memory (a timeline, a recipe chain) with the chosen planner; Fast Downward gets it written as PDDL. */
export async function planTask(domain: Domain, problem: Problem, options: PlanFilesOptions = {}): Promise<PlanResult> {
  return solveTask(domain, problem, () => ({ domain: writeDomain(domain), problem: writeProblem(problem) }), options);
}

/** `texts` is asked for only when Fast Downward runs: the native planner needs no PDDL text. */
async function solveTask(domain: Domain, problem: Problem, texts: () => { domain: string; problem: string }, options: PlanFilesOptions): Promise<PlanResult> {
  if (!usesFastDownward(options)) return solveNative(domain, problem, nativeOptions(options));
  const dir = mkdtempSync(join(tmpdir(), "gllam-plan-"));
  try {
    const [domainFile, problemFile] = [join(dir, "domain.pddl"), join(dir, "problem.pddl")];
    const { domain: domainText, problem: problemText } = texts();
    writeFileSync(domainFile, domainText);
    writeFileSync(problemFile, problemText);
    return await runFastDownward(domainFile, problemFile, domain, problem, { ...options.fastDownward, timeoutMs: options.timeoutMs });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
