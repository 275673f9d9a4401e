import type { CompiledTask } from "./compiled-task.ts";

/**
 * The FF heuristic over the delete relaxation, with h_add best supporters (as in Fast Downward):
 * costs spread from the state's facts through actions whose preconditions are all reached; the
 * relaxed plan is read back from the goals along best supporters. Its actions applicable in the
 * state are the helpful actions (preferred operators).
 */
export class FFHeuristic {
  readonly #t: CompiledTask;
  readonly #actionCost: Float64Array;
  readonly #factCost: Float64Array;
  readonly #supporter: Int32Array;
  readonly #unsat: Int32Array;
  readonly #sumPre: Float64Array;
  readonly #preCount: Int32Array;
  readonly #isGoal: Uint8Array;
  /**
   * Integer costs (always, with unit costs): a bucket queue, one stack of facts per cost. Which of
   * equally cheap supporters wins shapes the relaxed plan and its helpful actions: last-in first-out
   * (as Fast Downward's bucket queue) measured far better than first-in first-out on grid tasks.
   */
  readonly #buckets: number[][] | undefined;
  #heapFacts: Int32Array;
  #heapCosts: Float64Array;
  #heapSize = 0;
  readonly #markedAction: Int32Array;
  readonly #markedFact: Int32Array;
  #stamp = 0;
  readonly #stack: Int32Array;
  /** Helpful actions of the last evaluation. */
  readonly preferred: Int32Array;
  preferredCount = 0;

  /** `unitCost` ignores action costs (a search for a first plan fast, as LAMA's first iteration). */
  constructor(task: CompiledTask, unitCost: boolean) {
    this.#t = task;
    this.#actionCost = unitCost ? new Float64Array(task.actionCount).fill(1) : task.cost;
    this.#factCost = new Float64Array(task.facts);
    this.#supporter = new Int32Array(task.facts);
    this.#unsat = new Int32Array(task.actionCount);
    this.#sumPre = new Float64Array(task.actionCount);
    this.#preCount = Int32Array.from({ length: task.actionCount }, (_, a) => task.pre.start[a + 1]! - task.pre.start[a]!);
    this.#isGoal = new Uint8Array(task.facts);
    for (const g of task.goal) this.#isGoal[g] = 1;
    this.#buckets = this.#actionCost.every(Number.isInteger) ? [] : undefined;
    this.#heapFacts = new Int32Array(Math.max(16, task.facts * 2));
    this.#heapCosts = new Float64Array(this.#heapFacts.length);
    this.#markedAction = new Int32Array(task.actionCount);
    this.#markedFact = new Int32Array(task.facts);
    this.#stack = new Int32Array(task.facts + 1);
    this.preferred = new Int32Array(task.actionCount);
  }

  /** The relaxed plan's cost from `state`, or Infinity when even the relaxation cannot reach the goal. */
  evaluate(state: Uint32Array): number {
    const t = this.#t;
    const factCost = this.#factCost;
    const supporter = this.#supporter;
    factCost.fill(Infinity);
    this.#unsat.set(this.#preCount);
    this.#sumPre.fill(0);
    this.#heapSize = 0;
    if (this.#buckets) for (const bucket of this.#buckets) bucket.length = 0;
    let goalsLeft = t.goal.length;
    for (let w = 0; w < t.words; w++) {
      let bits = state[w]!;
      while (bits !== 0) {
        const low = bits & -bits;
        const f = (w << 5) + 31 - Math.clz32(low);
        bits ^= low;
        factCost[f] = 0;
        supporter[f] = -1;
        this.#push(f, 0);
      }
    }
    for (const a of t.always) this.#reach(a, 0);
    const { start, data } = t.preOf;
    const settle = (f: number, cost: number) => {
      if (this.#isGoal[f]) goalsLeft--;
      for (let i = start[f]!, end = start[f + 1]!; i < end; i++) {
        const a = data[i]!;
        this.#sumPre[a]! += cost;
        if (--this.#unsat[a]! === 0) this.#reach(a, this.#sumPre[a]!);
      }
    };
    const buckets = this.#buckets;
    if (buckets) {
      // Facts enter the bucket of their cost; a later, cheaper entry makes an earlier one stale.
      for (let cost = 0; cost < buckets.length && goalsLeft > 0; cost++) {
        const bucket: number[] = buckets[cost]!;
        while (bucket.length > 0 && goalsLeft > 0) {
          const f = bucket.pop()!;
          if (factCost[f] === cost) settle(f, cost);
        }
      }
    } else {
      while (this.#heapSize > 0 && goalsLeft > 0) {
        const cost = this.#heapCosts[0]!;
        const f = this.#pop();
        if (cost <= factCost[f]!) settle(f, cost);
      }
    }
    for (const g of t.goal) if (factCost[g] === Infinity) return Infinity;
    return this.#extractRelaxedPlan(state);
  }

  #reach(a: number, preCost: number): void {
    const cost = preCost + this.#actionCost[a]!;
    const { start, data } = this.#t.add;
    for (let i = start[a]!, end = start[a + 1]!; i < end; i++) {
      const f = data[i]!;
      if (cost < this.#factCost[f]!) {
        this.#factCost[f] = cost;
        this.#supporter[f] = a;
        this.#push(f, cost);
      }
    }
  }

  #extractRelaxedPlan(state: Uint32Array): number {
    const t = this.#t;
    const stamp = ++this.#stamp;
    let top = 0;
    let h = 0;
    this.preferredCount = 0;
    for (const g of t.goal) {
      if (this.#markedFact[g] !== stamp) {
        this.#markedFact[g] = stamp;
        this.#stack[top++] = g;
      }
    }
    const { start, data } = t.pre;
    while (top > 0) {
      const f = this.#stack[--top]!;
      const a = this.#supporter[f]!;
      if (a < 0 || this.#markedAction[a] === stamp) continue; // a < 0: true in the state
      this.#markedAction[a] = stamp;
      h += this.#actionCost[a]!;
      let applicable = true;
      for (let i = start[a]!, end = start[a + 1]!; i < end; i++) {
        const p = data[i]!;
        if (this.#supporter[p]! >= 0) applicable = false;
        if (this.#markedFact[p] !== stamp) {
          this.#markedFact[p] = stamp;
          this.#stack[top++] = p;
        }
      }
      if (applicable && t.isApplicable(state, a)) this.preferred[this.preferredCount++] = a;
    }
    // A relaxed plan of zero-cost actions still needs steps: count them so progress shows.
    return h === 0 && !t.isGoal(state) ? 1 : h;
  }

  #push(f: number, cost: number): void {
    const buckets = this.#buckets;
    if (buckets) {
      while (buckets.length <= cost) buckets.push([]);
      buckets[cost]!.push(f);
      return;
    }
    if (this.#heapSize === this.#heapFacts.length) {
      const facts = new Int32Array(this.#heapSize * 2);
      facts.set(this.#heapFacts);
      const costs = new Float64Array(this.#heapSize * 2);
      costs.set(this.#heapCosts);
      this.#heapFacts = facts;
      this.#heapCosts = costs;
    }
    let i = this.#heapSize++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.#heapCosts[parent]! <= cost) break;
      this.#heapFacts[i] = this.#heapFacts[parent]!;
      this.#heapCosts[i] = this.#heapCosts[parent]!;
      i = parent;
    }
    this.#heapFacts[i] = f;
    this.#heapCosts[i] = cost;
  }

  #pop(): number {
    const top = this.#heapFacts[0]!;
    const n = --this.#heapSize;
    const f = this.#heapFacts[n]!;
    const cost = this.#heapCosts[n]!;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && this.#heapCosts[child + 1]! < this.#heapCosts[child]!) child++;
      if (this.#heapCosts[child]! >= cost) break;
      this.#heapFacts[i] = this.#heapFacts[child]!;
      this.#heapCosts[i] = this.#heapCosts[child]!;
      i = child;
    }
    this.#heapFacts[i] = f;
    this.#heapCosts[i] = cost;
    return top;
  }
}
