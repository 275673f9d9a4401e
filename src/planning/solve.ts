import { existsSync, readFileSync, statSync } from "node:fs";
import { GllamError } from "../engine/errors.ts";
import { isFastDownwardAvailable, runFastDownward, type FastDownwardOptions } from "./fast-downward.ts";
import { parseDomain, parseProblem } from "./parser.ts";
import type { Domain, Problem } from "./pddl-types.ts";
import { solveNative, type NativePlannerOptions, type PlanResult } from "./planner.ts";

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
  const choice = options.planner ?? "native";
  const useFastDownward = choice === "fast-downward" || (choice === "auto" && isFastDownwardAvailable(options.fastDownward?.path));
  if (useFastDownward) return runFastDownward(domainFile, problemFile, domain, problem, { ...options.fastDownward, timeoutMs: options.timeoutMs });
  return solveNative(domain, problem, { ...options, search: choice === "bfs" ? "bfs" : options.search });
}
