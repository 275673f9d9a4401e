/**
 * Ordering constraints between time points (an event's start and end) as a directed graph:
 * reachability answers "necessarily before", a cycle is a contradiction.
 */

export type TimePoint = { event: string; edge: "start" | "end" };
export type OrderingConstraint = {
  before: TimePoint;
  after: TimePoint;
  /** The semantic link that states it (absent for valid times, event durations and hypotheses). */
  linkId?: number;
  why: string;
};

export const pointKey = (p: TimePoint) => `${p.event}\u0000${p.edge}`;

export class OrderingGraph {
  readonly constraints: OrderingConstraint[];
  readonly #out = new Map<string, number[]>();

  constructor(constraints: OrderingConstraint[]) {
    this.constraints = constraints;
    constraints.forEach((c, i) => {
      const key = pointKey(c.before);
      const list = this.#out.get(key);
      if (list) list.push(i);
      else this.#out.set(key, [i]);
    });
  }

  /** The constraints of a shortest chain proving `from` comes before `to`, or undefined. */
  chain(from: TimePoint, to: TimePoint): OrderingConstraint[] | undefined {
    const target = pointKey(to);
    const via = new Map<string, number>([[pointKey(from), -1]]);
    const queue = [pointKey(from)];
    for (let i = 0; i < queue.length; i++) {
      const at = queue[i]!;
      for (const c of this.#out.get(at) ?? []) {
        const next = pointKey(this.constraints[c]!.after);
        if (via.has(next)) continue;
        via.set(next, c);
        if (next === target) return this.#unwind(via, next);
        queue.push(next);
      }
    }
    return undefined;
  }

  #unwind(via: Map<string, number>, end: string): OrderingConstraint[] {
    const out: OrderingConstraint[] = [];
    for (let c = via.get(end)!; c >= 0; c = via.get(pointKey(this.constraints[c]!.before))!) out.push(this.constraints[c]!);
    return out.reverse();
  }

  /** The constraints of one cycle (iterative DFS with an active-stack guard), or undefined when acyclic. */
  findCycle(): OrderingConstraint[] | undefined {
    const state = new Map<string, 1 | 2>(); // 1 on the active stack, 2 finished
    const viaEdge = new Map<string, number>();
    for (const root of this.constraints.map((c) => pointKey(c.before))) {
      if (state.has(root)) continue;
      const stack: { key: string; next: number }[] = [{ key: root, next: 0 }];
      state.set(root, 1);
      while (stack.length > 0) {
        const frame = stack.at(-1)!;
        const edges = this.#out.get(frame.key) ?? [];
        if (frame.next === edges.length) {
          state.set(frame.key, 2);
          stack.pop();
          continue;
        }
        const c = edges[frame.next++]!;
        const next = pointKey(this.constraints[c]!.after);
        if (state.get(next) === 1) {
          const cycle = [this.constraints[c]!];
          for (let at = frame.key; at !== next; at = pointKey(this.constraints[viaEdge.get(at)!]!.before)) cycle.push(this.constraints[viaEdge.get(at)!]!);
          return cycle.reverse();
        }
        if (!state.has(next)) {
          state.set(next, 1);
          viaEdge.set(next, c);
          stack.push({ key: next, next: 0 });
        }
      }
    }
    return undefined;
  }
}
