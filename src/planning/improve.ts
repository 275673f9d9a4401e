import type { CompiledTask } from "./compiled-task.ts";

export const planCost = (t: CompiledTask, plan: number[]): number => plan.reduce((sum, a) => sum + t.cost[a]!, 0);

/**
 * Greedy action elimination (Nakhost and Müller 2010): drop a step, then every later step that is
 * no longer applicable; keep the shorter plan when the goal still holds. Repeats until no step
 * can go. Never makes a plan costlier (costs are non-negative).
 */
export function eliminateActions(t: CompiledTask, plan: number[]): number[] {
  let current = plan;
  const scratch = new Uint32Array(t.words);
  let changed = true;
  while (changed) {
    changed = false;
    // prefix[i]: the state before step i.
    const prefix: Uint32Array[] = [t.initialState()];
    for (const a of current) prefix.push(t.apply(prefix.at(-1)!, a, new Uint32Array(t.words)));
    for (let i = 0; i < current.length; i++) {
      const state = prefix[i]!.slice();
      const kept: number[] = current.slice(0, i);
      for (let j = i + 1; j < current.length; j++) {
        const a = current[j]!;
        if (!t.isApplicable(state, a)) continue;
        t.apply(state, a, scratch);
        state.set(scratch);
        kept.push(a);
      }
      if (t.isGoal(state)) {
        current = kept;
        changed = true;
        break;
      }
    }
  }
  return current;
}
