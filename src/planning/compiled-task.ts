import type { GroundTask } from "./grounding.ts";

/** Lists of ints per key in one flat array (compressed sparse rows): key k owns data[start[k]..start[k+1]). */
export type Rows = { start: Int32Array; data: Int32Array };

function toRows(lists: ArrayLike<number>[]): Rows {
  const start = new Int32Array(lists.length + 1);
  lists.forEach((l, i) => (start[i + 1] = start[i]! + l.length));
  const data = new Int32Array(start[lists.length]!);
  lists.forEach((l, i) => data.set(l, start[i]!));
  return { start, data };
}

function invert(rows: Rows, keys: number): Rows {
  const lists: number[][] = Array.from({ length: keys }, () => []);
  for (let a = 0; a + 1 < rows.start.length; a++) for (let i = rows.start[a]!; i < rows.start[a + 1]!; i++) lists[rows.data[i]!]!.push(a);
  return toRows(lists);
}

/**
 * A ground task in flat typed arrays for the searches: states are bitsets of `words` 32-bit words;
 * each action is listed under one of its preconditions so successor generation only looks at
 * actions whose trigger fact is true.
 */
export class CompiledTask {
  readonly task: GroundTask;
  readonly facts: number;
  readonly words: number;
  readonly actionCount: number;
  readonly pre: Rows;
  readonly preNeg: Rows;
  readonly add: Rows;
  readonly del: Rows;
  readonly cost: Float64Array;
  /** Fact -> actions that have it as a positive precondition (for the heuristic). */
  readonly preOf: Rows;
  /** Fact -> actions triggered by it (each action once); actions without preconditions in `always`. */
  readonly triggered: Rows;
  readonly always: Int32Array;
  readonly goal: Int32Array;
  readonly goalNeg: Int32Array;

  constructor(task: GroundTask) {
    this.task = task;
    this.facts = task.facts.length;
    this.words = Math.max(1, Math.ceil(this.facts / 32));
    this.actionCount = task.actions.length;
    this.pre = toRows(task.actions.map((a) => a.pre));
    this.preNeg = toRows(task.actions.map((a) => a.preNeg));
    this.add = toRows(task.actions.map((a) => a.add));
    this.del = toRows(task.actions.map((a) => a.del));
    this.cost = Float64Array.from(task.actions, (a) => a.cost);
    this.preOf = invert(this.pre, this.facts);
    const byTrigger: number[][] = Array.from({ length: this.facts }, () => []);
    const always: number[] = [];
    // Trigger on the precondition fewest actions need: the rarest fact prunes the most checks.
    task.actions.forEach((a, i) => {
      if (a.pre.length === 0) return always.push(i);
      let best = a.pre[0]!;
      for (const f of a.pre) if (this.preOf.start[f + 1]! - this.preOf.start[f]! < this.preOf.start[best + 1]! - this.preOf.start[best]!) best = f;
      byTrigger[best]!.push(i);
    });
    this.triggered = toRows(byTrigger);
    this.always = Int32Array.from(always);
    this.goal = task.goal;
    this.goalNeg = task.goalNeg;
  }

  initialState(): Uint32Array {
    const state = new Uint32Array(this.words);
    for (const f of this.task.init) state[f >>> 5]! |= 1 << (f & 31);
    return state;
  }

  isGoal(state: Uint32Array): boolean {
    for (const f of this.goal) if ((state[f >>> 5]! & (1 << (f & 31))) === 0) return false;
    for (const f of this.goalNeg) if ((state[f >>> 5]! & (1 << (f & 31))) !== 0) return false;
    return true;
  }

  /** Goals not met in `state` (the goal-count heuristic). */
  unmetGoals(state: Uint32Array): number {
    let n = 0;
    for (const f of this.goal) if ((state[f >>> 5]! & (1 << (f & 31))) === 0) n++;
    for (const f of this.goalNeg) if ((state[f >>> 5]! & (1 << (f & 31))) !== 0) n++;
    return n;
  }

  isApplicable(state: Uint32Array, a: number): boolean {
    const { pre, preNeg } = this;
    for (let i = pre.start[a]!, end = pre.start[a + 1]!; i < end; i++) {
      const f = pre.data[i]!;
      if ((state[f >>> 5]! & (1 << (f & 31))) === 0) return false;
    }
    for (let i = preNeg.start[a]!, end = preNeg.start[a + 1]!; i < end; i++) {
      const f = preNeg.data[i]!;
      if ((state[f >>> 5]! & (1 << (f & 31))) !== 0) return false;
    }
    return true;
  }

  /** Writes the applicable actions into `out` (sized actionCount) and returns how many. */
  applicable(state: Uint32Array, out: Int32Array): number {
    let n = 0;
    for (const a of this.always) if (this.isApplicable(state, a)) out[n++] = a;
    const { start, data } = this.triggered;
    for (let w = 0; w < this.words; w++) {
      let bits = state[w]!;
      while (bits !== 0) {
        const low = bits & -bits;
        const f = (w << 5) + 31 - Math.clz32(low);
        bits ^= low;
        for (let i = start[f]!, end = start[f + 1]!; i < end; i++) if (this.isApplicable(state, data[i]!)) out[n++] = data[i]!;
      }
    }
    return n;
  }

  /** The successor of `state` under action `a`, written into `into`. */
  apply(state: Uint32Array, a: number, into: Uint32Array): Uint32Array {
    into.set(state);
    const { add, del } = this;
    for (let i = del.start[a]!, end = del.start[a + 1]!; i < end; i++) {
      const f = del.data[i]!;
      into[f >>> 5]! &= ~(1 << (f & 31));
    }
    for (let i = add.start[a]!, end = add.start[a + 1]!; i < end; i++) {
      const f = add.data[i]!;
      into[f >>> 5]! |= 1 << (f & 31);
    }
    return into;
  }
}
