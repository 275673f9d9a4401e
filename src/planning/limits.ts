/** Why a search stopped without a plan, short of proving there is none. */
export type LimitReason = "time limit" | "node limit" | "memory limit" | "grounding limit";

/** Thrown inside grounding and search when a limit is hit; the planner turns it into "unsolved". */
export class PlanningLimit extends Error {
  readonly reason: LimitReason;
  constructor(reason: LimitReason, detail: string) {
    super(`${reason}: ${detail}`);
    this.reason = reason;
  }
}

export type Limits = {
  /** Absolute deadline, performance.now() milliseconds. */
  deadline: number;
  /** States the search may store. */
  maxNodes: number;
  /** Bytes the search's state storage and open lists may take. */
  maxMemoryBytes: number;
  /** Ground actions the grounder may create. */
  maxGroundActions: number;
};

export const DEFAULT_LIMITS = { timeoutMs: 30_000, maxNodes: 20_000_000, memoryLimitMB: 2048, maxGroundActions: 2_000_000 };

export function makeLimits(options: { timeoutMs?: number; maxNodes?: number; memoryLimitMB?: number; maxGroundActions?: number } = {}): Limits {
  return {
    deadline: performance.now() + (options.timeoutMs ?? DEFAULT_LIMITS.timeoutMs),
    maxNodes: options.maxNodes ?? DEFAULT_LIMITS.maxNodes,
    maxMemoryBytes: (options.memoryLimitMB ?? DEFAULT_LIMITS.memoryLimitMB) * 1024 * 1024,
    maxGroundActions: options.maxGroundActions ?? DEFAULT_LIMITS.maxGroundActions,
  };
}

export function checkDeadline(limits: Limits, during: string): void {
  if (performance.now() > limits.deadline) throw new PlanningLimit("time limit", `reached during ${during}`);
}
