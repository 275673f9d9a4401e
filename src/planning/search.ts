import type { CompiledTask } from "./compiled-task.ts";
import { FFHeuristic } from "./ff-heuristic.ts";
import { checkDeadline, PlanningLimit, type Limits } from "./limits.ts";
import { OpenList } from "./open-list.ts";
import { StateSpace } from "./state-space.ts";

export type SearchStats = { expanded: number; generated: number; evaluated: number };

/** A search ends with a plan (action ids), a proof there is none (undefined), or a limit (thrown as PlanningLimit); it counts into the stats it is given. */
export type SearchOutcome = { plan: number[] | undefined };

export const newSearchStats = (): SearchStats => ({ expanded: 0, generated: 0, evaluated: 0 });

/** Deadline and memory checks every 256 expansions: cheap, and responsive within milliseconds. */
function checkLimits(limits: Limits, stats: SearchStats, space: StateSpace, open: OpenList[]): void {
  if ((stats.expanded & 0xff) !== 0) return;
  checkDeadline(limits, "search");
  const bytes = space.bytes + open.reduce((sum, list) => sum + list.bytes, 0);
  if (bytes > limits.maxMemoryBytes) throw new PlanningLimit("memory limit", `search uses ${Math.round(bytes / 2 ** 20)} MB`);
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
  for (let id = 0; id < space.count; id++) {
    checkLimits(limits, stats, space, []);
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
  /** Alternate with an open list of helpful actions, boosted (by 1000 pops) on progress. */
  preferred: boolean;
  /** FF counts every action as cost 1 (fastest first plan); false uses the task's costs. */
  unitCostHeuristic: boolean;
};

const BOOST = 1000;

/**
 * Greedy best-first search with the FF heuristic and helpful actions. States whose relaxation cannot
 * reach the goal are dead ends and pruned; exhausting the open lists proves the task unsolvable.
 */
export function greedyBestFirstSearch(t: CompiledTask, limits: Limits, options: GreedyOptions, stats: SearchStats): SearchOutcome {
  const space = new StateSpace(t.words, limits);
  const ff = new FFHeuristic(t, options.unitCostHeuristic);
  const init = t.initialState();
  space.insert(init, -1, -1, 0);
  if (t.isGoal(init)) return { plan: [] };
  const h0 = ff.evaluate(init);
  stats.evaluated++;
  if (h0 === Infinity) return { plan: undefined };
  const regular = new OpenList();
  const helpful = new OpenList();
  const priority = [0, 0];
  let bestH = h0;
  const ops = new Int32Array(t.actionCount);
  const isPreferred = new Int32Array(t.actionCount);
  let stamp = 0;
  const next = new Uint32Array(t.words);

  /** Marks the last evaluation's helpful actions; returns the stamp that marks them. */
  const markPreferred = () => {
    stamp++;
    if (options.preferred) for (let i = 0; i < ff.preferredCount; i++) isPreferred[ff.preferred[i]!] = stamp;
    return stamp;
  };
  const progress = (h: number) => {
    if (h < bestH) {
      bestH = h;
      priority[1]! -= BOOST;
    }
  };
  const choose = (): OpenList | undefined => {
    if (helpful.size > 0 && (regular.size === 0 || priority[1]! <= priority[0]!)) {
      priority[1]!++;
      return helpful;
    }
    if (regular.size === 0) return undefined;
    priority[0]!++;
    return regular;
  };

  if (options.lazy) {
    const expandLazy = (id: number, h: number) => {
      const mark = markPreferred();
      const n = t.applicable(space.state(id), ops);
      stats.expanded++;
      for (let i = 0; i < n; i++) {
        const op = ops[i]!;
        regular.push(h, id, op);
        if (isPreferred[op] === mark) helpful.push(h, id, op);
      }
    };
    expandLazy(0, h0);
    for (let list = choose(); list; list = choose()) {
      checkLimits(limits, stats, space, [regular, helpful]);
      list.pop();
      const parent = list.a;
      const op = list.b;
      t.apply(space.state(parent), op, next);
      stats.generated++;
      const id = space.insert(next, parent, op, space.g[parent]! + t.cost[op]!);
      if (id < 0) continue;
      if (t.isGoal(next)) return { plan: space.path(id) };
      const h = ff.evaluate(next);
      stats.evaluated++;
      if (h === Infinity) continue;
      progress(h);
      expandLazy(id, h);
    }
    return { plan: undefined };
  }

  regular.push(h0, 0);
  if (options.preferred) helpful.push(h0, 0);
  const expanded = new Set<number>();
  for (let list = choose(); list; list = choose()) {
    checkLimits(limits, stats, space, [regular, helpful]);
    list.pop();
    const id = list.a;
    if (expanded.has(id)) continue;
    expanded.add(id);
    stats.expanded++;
    const state = space.state(id).slice();
    ff.evaluate(state); // again, for this state's helpful actions
    const mark = markPreferred();
    const n = t.applicable(state, ops);
    for (let i = 0; i < n; i++) {
      const op = ops[i]!;
      t.apply(state, op, next);
      stats.generated++;
      const child = space.insert(next, id, op, space.g[id]! + t.cost[op]!);
      if (child < 0) continue;
      if (t.isGoal(next)) return { plan: space.path(child) };
      const h = ff.evaluate(next);
      stats.evaluated++;
      if (h === Infinity) continue;
      progress(h);
      regular.push(h, child);
      if (isPreferred[op] === mark) helpful.push(h, child);
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
  open.push(weight * h0, 0);
  const hOf: number[] = [h0];
  const ops = new Int32Array(t.actionCount);
  const next = new Uint32Array(t.words);
  let expandedAt: Float64Array = new Float64Array(1024).fill(Infinity);
  while (open.size > 0) {
    checkLimits(limits, stats, space, [open]);
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
