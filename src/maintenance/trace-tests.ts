/**
 * Seed: SimulateRandomTraceTests. Random pairs of entities become synthetic questions ("how is A
 * related to B?"); the memory answers with findMultiHopPath, and the answer is scored for clarity
 * (hops, caveats, conflicts, or taxonomy overlap) and checked for consistency (the same answer
 * from the other end, no path through a contradiction or fallacy).
 */
import { seededRandom } from "../bench/random.ts";
import type { Store } from "../engine/store.ts";
import { GllamError } from "../engine/errors.ts";
import { parseScope } from "../memory/parse.ts";
import { NODE_TYPES } from "../memory/types.ts";
import { readNodes } from "../semantic/nodes.ts";
import { findMultiHopPath, type MultiHopPath } from "../semantic/paths.ts";
import { calculateTaxonomyPathOverlap, calculateTraceClarity, sampleDistinctPairs, summarizeTraces, traceInconsistencies, type TraceScores } from "./trace-scores.ts";

export type TraceEnd = { id: string; name: string; path: string };
export type TraceResult = {
  a: TraceEnd;
  b: TraceEnd;
  question: string;
  answer: string;
  found: boolean;
  hops: number;
  taxonomyOverlap: number;
  clarity: number;
  consistent: boolean;
  issues: string[];
};
export type TraceTestReport = TraceScores & { seed: number; entities: number; traces: TraceResult[] };
export type TraceTestOptions = { scope?: string; seed?: number; maxHops?: number; asOf?: number };

/** "A -[uses]-> B <-[is_a]- C": the path as the answer a reader would get. */
export function describePath(path: MultiHopPath): string {
  if (!path.found) return "no connection within reach";
  return path.nodes
    .map((node, i) => {
      const link = path.links[i];
      if (!link) return node.name;
      return link.direction === "out" ? `${node.name} -[${link.relationship}]-> ` : `${node.name} <-[${link.relationship}]- `;
    })
    .join("");
}

export function simulateRandomTraceTests(store: Store, traceCount: number, options: TraceTestOptions = {}): TraceTestReport {
  if (!Number.isInteger(traceCount) || traceCount < 0 || traceCount > 100_000) throw new GllamError("E_BAD_INPUT", `trace count must be an integer in 0..100000, got ${traceCount}`);
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const asOf = options.asOf ?? Date.now();
  const scope = parseScope(options.scope);
  const ids = store
    .dbRO()
    .query<{ id: string }, [string]>(
      `SELECT id FROM semantic_nodes WHERE scope = ? AND is_category = 0
         AND type NOT IN ('${NODE_TYPES.contradiction}', '${NODE_TYPES.fallacy}', '${NODE_TYPES.source}', '${NODE_TYPES.category}') ORDER BY id`,
    )
    .all(scope)
    .map((row) => row.id);
  const pairs = sampleDistinctPairs(ids.length, traceCount, seededRandom(seed).next);
  const traces = pairs.map(([i, j]) => runTrace(store, ids[i]!, ids[j]!, { maxHops: options.maxHops ?? 4, asOf, scope }));
  return { seed, entities: ids.length, traces, ...summarizeTraces(traces) };
}

function runTrace(store: Store, aId: string, bId: string, options: { maxHops: number; asOf: number; scope: string }): TraceResult {
  const forward = findMultiHopPath(store, aId, bId, options);
  const reverse = findMultiHopPath(store, bId, aId, options);
  const types = new Map(readNodes(store, forward.nodes.map((n) => n.id), options.scope).map((n) => [n.id, n.type]));
  const [a, b] = readNodes(store, [aId, bId], options.scope).map((n): TraceEnd => ({ id: n.id, name: n.name, path: n.taxonomyPath })) as [TraceEnd, TraceEnd];
  const taxonomyOverlap = calculateTaxonomyPathOverlap(a.path, b.path);
  const issues = traceInconsistencies({ ...forward, nodeTypes: forward.nodes.map((n) => types.get(n.id) ?? "") }, reverse);
  return {
    a,
    b,
    question: `How is ${a.name} related to ${b.name}?`,
    answer: describePath(forward),
    found: forward.found,
    hops: forward.hops,
    taxonomyOverlap,
    clarity: calculateTraceClarity({ ...forward, taxonomyOverlap }),
    consistent: issues.length === 0,
    issues,
  };
}
