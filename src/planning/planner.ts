import { CompiledTask } from "./compiled-task.ts";
import { groundTask, type GroundTask } from "./grounding.ts";
import { eliminateActions, planCost } from "./improve.ts";
import { makeLimits, PlanningLimit, type Limits } from "./limits.ts";
import type { Domain, PlanStep, Problem } from "./pddl-types.ts";
import { breadthFirstSearch, greedyBestFirstSearch, weightedAStar, type SearchStats } from "./search.ts";
import { validatePlan } from "./validate.ts";

/**
 * solved: a validated plan; unsolvable: proved to have none; unsolved: a limit stopped the search;
 * invalid: a planner returned a plan that failed validation (a planner bug; never counted as solved).
 */
export type PlanStatus = "solved" | "unsolvable" | "unsolved" | "invalid";

export type PlanResult = {
  status: PlanStatus;
  planner: string;
  plan: PlanStep[];
  cost: number;
  /** Why there is no plan (empty when solved). */
  reason: string;
  stats: SearchStats & { facts: number; groundActions: number; groundMs: number; searchMs: number; totalMs: number };
};

export type NativeSearch = "lazy-gbfs" | "eager-gbfs" | "bfs";
export type Improvement = "none" | "eliminate" | "anytime";

export type NativePlannerOptions = {
  /** Default lazy-gbfs: greedy best-first, FF and goal count in alternation, helpful actions, lazy evaluation. */
  search?: NativeSearch;
  /** Default eliminate: greedy action elimination; anytime adds weighted A* restarts (w = 5, 3, 2, 1) in the time left. */
  improve?: Improvement;
  preferredOperators?: boolean;
  /** Alternate FF with the goal-count heuristic (default true). */
  goalCount?: boolean;
  timeoutMs?: number;
  maxNodes?: number;
  memoryLimitMB?: number;
  maxGroundActions?: number;
};

export const noStats = (): PlanResult["stats"] => ({ expanded: 0, generated: 0, evaluated: 0, facts: 0, groundActions: 0, groundMs: 0, searchMs: 0, totalMs: 0 });

/**
 * The native planner: ground with reachability pruning, search, improve, and validate the plan by
 * simulation on the lifted task before returning it. Pure: no database, no files.
 */
export function solveNative(domain: Domain, problem: Problem, options: NativePlannerOptions = {}): PlanResult {
  const search = options.search ?? "lazy-gbfs";
  const planner = search === "bfs" ? "bfs" : `native (${search}${options.improve === "none" ? "" : `, ${options.improve ?? "eliminate"}`})`;
  const start = performance.now();
  const limits = makeLimits(options);
  const stats = noStats();
  const finish = (status: PlanStatus, reason: string, plan: PlanStep[] = [], cost = 0): PlanResult => {
    stats.totalMs = performance.now() - start;
    return { status, planner, plan, cost, reason, stats };
  };
  let task: GroundTask;
  try {
    task = groundTask(domain, problem, limits);
  } catch (error) {
    if (error instanceof PlanningLimit) return finish("unsolved", error.message);
    throw error;
  }
  stats.groundMs = performance.now() - start;
  stats.facts = task.facts.length;
  stats.groundActions = task.actions.length;
  if (task.unreachableGoal) return finish("unsolvable", task.unreachableGoal);
  const t = new CompiledTask(task);
  let plan: number[] | undefined;
  try {
    plan = (
      search === "bfs"
        ? breadthFirstSearch(t, limits, stats)
        : greedyBestFirstSearch(t, limits, { lazy: search !== "eager-gbfs", preferred: options.preferredOperators ?? true, unitCostHeuristic: true, goalCount: options.goalCount ?? true }, stats)
    ).plan;
  } catch (error) {
    stats.searchMs = performance.now() - start - stats.groundMs;
    if (error instanceof PlanningLimit) return finish("unsolved", error.message);
    throw error;
  }
  stats.searchMs = performance.now() - start - stats.groundMs;
  if (!plan) return finish("unsolvable", "the search space was exhausted: no plan exists");
  if (search !== "bfs") plan = improvePlan(t, plan, options.improve ?? "eliminate", limits, stats);
  const steps = plan.map((a) => ({ action: task.actions[a]!.schema, args: task.actions[a]!.args }));
  const check = validatePlan(domain, problem, steps);
  return check.valid ? finish("solved", "", steps, check.cost) : finish("invalid", `step ${check.step}: ${check.reason}`, steps);
}

/** Action elimination, then (anytime) weighted A* restarts bounded by the best cost so far until the deadline. */
function improvePlan(t: CompiledTask, plan: number[], improve: Improvement, limits: Limits, stats: SearchStats): number[] {
  if (improve === "none") return plan;
  let best = eliminateActions(t, plan);
  if (improve !== "anytime") return best;
  for (const weight of [5, 3, 2, 1]) {
    try {
      const found = weightedAStar(t, limits, weight, planCost(t, best), stats).plan;
      if (!found) break; // the bounded search was exhausted: no cheaper plan exists, the best is optimal
      const shorter = eliminateActions(t, found);
      if (planCost(t, shorter) < planCost(t, best)) best = shorter;
    } catch (error) {
      if (error instanceof PlanningLimit) break;
      throw error;
    }
  }
  return best;
}
