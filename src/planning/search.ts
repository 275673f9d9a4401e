import type { CompiledTask } from "./compiled-task.ts";
import { FFHeuristic } from "./ff-heuristic.ts";
import { checkDeadline, PlanningLimit, type Limits } from "./limits.ts";
import { OpenList } from "./open-list.ts";
import { StateSpace } from "./state-space.ts";

export type SearchStats = { expanded: number; generated: number; evaluated: number };

/** A search ends with a plan (action ids), a proof there is none (undefined), or a limit (thrown as PlanningLimit); it counts into the stats it is given. */
export type SearchOutcome = { plan: number[] | undefined };

export const newSearchStats = (): SearchStats => ({ expanded: 0, generated: 0, evaluated: 0 });

/**
 * A limit check to call once per expansion and per evaluation; it looks at the clock and memory
 * every 32 calls (an evaluation can take a millisecond on large tasks): cheap, and responsive.
 */
function limitChecker(limits: Limits, space: StateSpace, open: OpenList[]): () => void {
  let calls = 0;
  return () => {
    if ((++calls & 0x1f) !== 0) return;
    checkDeadline(limits, "search");
    const bytes = space.bytes + open.reduce((sum, list) => sum + list.bytes, 0);
    if (bytes > limits.maxMemoryBytes) throw new PlanningLimit("memory limit", `search uses ${Math.round(bytes / 2 ** 20)} MB`);
  };
}

/**
 * The seed's breadth-first search: states are stored in the order they are generated, so the
 * state ids themselves are the FIFO queue. Finds a shortest plan (in steps).
 */
export function breadthFirstSearch(t: CompiledTask, limits: Limits, stats: SearchStats): SearchOutcome {
  const space = new StateSpace(t.words, limits);
  const init = t.initialState();
  space.insert(init, -1, -1, 0);
  if (t.isGoal(init)) return { plan: [] };
  const ops = new Int32Array(t.actionCount);
  const next = new Uint32Array(t.words);
  const checkLimits = limitChecker(limits, space, []);
  for (let id = 0; id < space.count; id++) {
    checkLimits();
    stats.expanded++;
    const state = space.state(id);
    const n = t.applicable(state, ops);
    for (let i = 0; i < n; i++) {
      const op = ops[i]!;
      t.apply(state, op, next);
      stats.generated++;
      const child = space.insert(next, id, op, space.g[id]! + t.cost[op]!);
      if (child >= 0 && t.isGoal(next)) return { plan: space.path(child) };
    }
  }
  return { plan: undefined };
}

export type GreedyOptions = {
  /** Lazy: successors are evaluated when taken from the open list (Fast Downward's lazy_greedy). */
  lazy: boolean;
  /** Alternate with open lists of helpful actions, boosted (by 1000 pops) on progress. */
  preferred: boolean;
  /** FF counts every action as cost 1 (fastest first plan); false uses the task's costs. */
  unitCostHeuristic: boolean;
  /**
   * Alternate FF with the count of unmet goals, as LAMA alternates FF with its landmark count:
   * goal count guides where FF's relaxed plans plateau (visiting, collecting), FF where goals interact.
   */
  goalCount: boolean;
};

const BOOST = 1000;

/** An open list of one heuristic, of all successors or of helpful actions only; the least-used list goes next. */
type Queue = { open: OpenList; heuristic: 0 | 1; helpful: boolean; priority: number };

/**
 * Greedy best-first search with the FF heuristic and helpful actions (and optionally the goal
 * count in alternation). States whose relaxation cannot reach the goal are dead ends and pruned;
 * exhausting the open lists proves the task unsolvable.
 */
export function greedyBestFirstSearch(t: CompiledTask, limits: Limits, options: GreedyOptions, stats: SearchStats): SearchOutcome {
  const space = new StateSpace(t.words, limits);
  const ff = new FFHeuristic(t, options.unitCostHeuristic);
  const init = t.initialState();
  space.insert(init, -1, -1, 0);
  if (t.isGoal(init)) return { plan: [] };
  const queues: Queue[] = [];
  for (const heuristic of options.goalCount ? ([0, 1] as const) : ([0] as const)) {
    queues.push({ open: new OpenList(), heuristic, helpful: false, priority: 0 });
    if (options.preferred) queues.push({ open: new OpenList(), heuristic, helpful: true, priority: 0 });
  }
  const checkLimits = limitChecker(limits, space, queues.map((q) => q.open));
  const best = [Infinity, Infinity];
  const ops = new Int32Array(t.actionCount);
  const isPreferred = new Int32Array(t.actionCount);
  let stamp = 0;
  const next = new Uint32Array(t.words);
  /** The heuristic values of the last evaluated state: FF, goal count. */
  const hs = [0, 0];

  /** Evaluates a state into hs; false for a dead end. New best values boost the helpful lists. */
  const evaluate = (state: Uint32Array): boolean => {
    hs[0] = ff.evaluate(state);
    stats.evaluated++;
    checkLimits();
    if (hs[0] === Infinity) return false;
    if (options.goalCount) hs[1] = t.unmetGoals(state);
    let improved = false;
    for (let k = 0; k < best.length; k++) {
      if (hs[k]! < best[k]!) {
        best[k] = hs[k]!;
        improved = true;
      }
    }
    if (improved) for (const q of queues) if (q.helpful) q.priority -= BOOST;
    return true;
  };
  /** Marks the last evaluation's helpful actions; returns the stamp that marks them. */
  const markPreferred = () => {
    stamp++;
    if (options.preferred) for (let i = 0; i < ff.preferredCount; i++) isPreferred[ff.preferred[i]!] = stamp;
    return stamp;
  };
  const choose = (): Queue | undefined => {
    let chosen: Queue | undefined;
    for (const q of queues) if (q.open.size > 0 && (!chosen || q.priority < chosen.priority)) chosen = q;
    if (chosen) chosen.priority++;
    return chosen;
  };
  const push = (op: number, mark: number, a: number, b = 0) => {
    for (const q of queues) if (!q.helpful || isPreferred[op] === mark) q.open.push(hs[q.heuristic]!, a, b);
  };

  let goalId = -1;
  /** The successor of `parent` by `op`: its id (its values in hs), or -1 for a duplicate or a dead end; a goal sets goalId. */
  const generate = (parent: number, state: Uint32Array, op: number): number => {
    t.apply(state, op, next);
    stats.generated++;
    const id = space.insert(next, parent, op, space.g[parent]! + t.cost[op]!);
    if (id < 0) return -1;
    if (t.isGoal(next)) return (goalId = id);
    return evaluate(next) ? id : -1;
  };

  if (!evaluate(init)) return { plan: undefined };
  if (options.lazy) {
    // Each entry is (parent, action), keyed by the parent's values: the child is made when taken.
    const expandLazy = (id: number) => {
      const mark = markPreferred();
      const n = t.applicable(space.state(id), ops);
      stats.expanded++;
      for (let i = 0; i < n; i++) push(ops[i]!, mark, id, ops[i]!);
    };
    expandLazy(0);
    for (let q = choose(); q; q = choose()) {
      checkLimits();
      q.open.pop();
      const id = generate(q.open.a, space.state(q.open.a), q.open.b);
      if (goalId >= 0) return { plan: space.path(goalId) };
      if (id >= 0) expandLazy(id);
    }
    return { plan: undefined };
  }

  for (const q of queues) q.open.push(hs[q.heuristic]!, 0);
  const expanded = new Set<number>();
  for (let q = choose(); q; q = choose()) {
    checkLimits();
    q.open.pop();
    const id = q.open.a;
    if (expanded.has(id)) continue;
    expanded.add(id);
    stats.expanded++;
    const state = space.state(id).slice();
    ff.evaluate(state); // again, for this state's helpful actions
    const mark = markPreferred();
    const n = t.applicable(state, ops);
    for (let i = 0; i < n; i++) {
      const op = ops[i]!;
      const child = generate(id, state, op);
      if (goalId >= 0) return { plan: space.path(goalId) };
      if (child >= 0) push(op, mark, child);
    }
  }
  return { plan: undefined };
}

/**
 * Weighted A* (f = g + w * h_FF with the task's costs) that prunes every path costing `bound` or
 * more: used to improve a plan already found. Reopens states reached more cheaply.
 */
export function weightedAStar(t: CompiledTask, limits: Limits, weight: number, bound: number, stats: SearchStats): SearchOutcome {
  const space = new StateSpace(t.words, limits);
  const ff = new FFHeuristic(t, false);
  const init = t.initialState();
  space.insert(init, -1, -1, 0);
  const h0 = ff.evaluate(init);
  stats.evaluated++;
  if (h0 === Infinity) return { plan: undefined };
  const open = new OpenList();
  const checkLimits = limitChecker(limits, space, [open]);
  open.push(weight * h0, 0);
  const hOf: number[] = [h0];
  const ops = new Int32Array(t.actionCount);
  const next = new Uint32Array(t.words);
  let expandedAt: Float64Array = new Float64Array(1024).fill(Infinity);
  while (open.size > 0) {
    checkLimits();
    open.pop();
    const id = open.a;
    const g = space.g[id]!;
    if (expandedAt.length <= id) expandedAt = growFilled(expandedAt, id + 1, Infinity);
    if (expandedAt[id]! <= g) continue;
    expandedAt[id] = g;
    const state = space.state(id);
    if (t.isGoal(state)) return { plan: space.path(id) };
    stats.expanded++;
    const n = t.applicable(state, ops);
    for (let i = 0; i < n; i++) {
      const op = ops[i]!;
      const childG = g + t.cost[op]!;
      if (childG >= bound) continue;
      t.apply(state, op, next);
      stats.generated++;
      let child = space.insert(next, id, op, childG);
      if (child < 0) {
        child = -child - 1;
        if (space.g[child]! <= childG) continue;
        space.reparent(child, id, op, childG);
      } else {
        hOf[child] = ff.evaluate(next);
        stats.evaluated++;
        checkLimits();
      }
      const h = hOf[child]!;
      if (h !== Infinity) open.push(childG + weight * h, child);
    }
  }
  return { plan: undefined };
}

function growFilled(old: Float64Array, atLeast: number, fill: number): Float64Array {
  const next = new Float64Array(Math.max(atLeast, old.length * 2)).fill(fill);
  next.set(old);
  return next;
}
