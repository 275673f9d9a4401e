/**
 * Scores of the synthetic trace tests, pure (seed: CalculateTraceClarity,
 * CalculateTaxonomyPathOverlap). The seed fixes the hop decay 1 / (1 + 0.1 (hops - 1)); the
 * factors for caveats, conflict links and taxonomy-only answers are ours, named here.
 */
import { taxonomySegments } from "../semantic/taxonomy-paths.ts";

export const HOP_DECAY = 0.1;
/** Each link on the path that carries caveats (the answer holds only under conditions). */
export const CAVEAT_FACTOR = 0.9;
/** Each link on the path that exists because of a conflict or a fallacy. */
export const CONFLICT_FACTOR = 0.5;
/** No path: the answer rests on the taxonomy alone, worth at most half a direct one. */
export const TAXONOMY_ONLY_WEIGHT = 0.5;
export const CONFLICT_RELATIONSHIPS: ReadonlySet<string> = new Set(["contradicts", "resolves_conflict", "subverts_claim", "flags_fallacy", "attacks_source"]);
/** Nodes a consistent answer does not pass through. */
export const CONFLICT_NODE_TYPES: ReadonlySet<string> = new Set(["contradiction", "fallacy"]);

export const hopDecay = (hops: number) => 1 / (1 + HOP_DECAY * (Math.max(1, hops) - 1));

/**
 * Segment overlap coefficient of two materialized paths: shared leading segments over the depth
 * of the shallower one (case-insensitive). Uncategorized ("/") overlaps nothing.
 */
export function calculateTaxonomyPathOverlap(a: string, b: string): number {
  const [x, y] = [taxonomySegments(a), taxonomySegments(b)].map((s) => s.map((seg) => seg.toLowerCase())) as [string[], string[]];
  const depth = Math.min(x.length, y.length);
  if (depth === 0) return 0;
  let shared = 0;
  while (shared < depth && x[shared] === y[shared]) shared++;
  return shared / depth;
}

export type TraceEvidence = {
  found: boolean;
  hops: number;
  links: readonly { relationship: string; caveats: string }[];
  taxonomyOverlap: number;
};

/** Clarity in [0, 1]: hop decay x caveat and conflict factors for a path; half the taxonomy overlap without one. */
export function calculateTraceClarity(trace: TraceEvidence): number {
  if (!trace.found) return TAXONOMY_ONLY_WEIGHT * trace.taxonomyOverlap;
  const caveated = trace.links.filter((l) => l.caveats.trim() !== "").length;
  const conflicts = trace.links.filter((l) => CONFLICT_RELATIONSHIPS.has(l.relationship)).length;
  return hopDecay(trace.hops) * CAVEAT_FACTOR ** caveated * CONFLICT_FACTOR ** conflicts;
}

export type TraceAnswer = { found: boolean; hops: number; links: readonly { relationship: string }[]; nodeTypes: readonly string[] };

/** Why an answer is inconsistent: the two directions disagree, or the path runs through a conflict. */
export function traceInconsistencies(forward: TraceAnswer, reverse: Pick<TraceAnswer, "found" | "hops">): string[] {
  const issues: string[] = [];
  if (forward.found !== reverse.found) issues.push(`asked from the other end the memory ${reverse.found ? "finds" : "finds no"} path`);
  else if (forward.hops !== reverse.hops) issues.push(`asked from the other end the path has ${reverse.hops} hops, not ${forward.hops}`);
  const conflicts = forward.links.filter((l) => CONFLICT_RELATIONSHIPS.has(l.relationship)).map((l) => l.relationship);
  if (conflicts.length > 0) issues.push(`the path runs through ${conflicts.join(", ")}`);
  const nodes = forward.nodeTypes.filter((t) => CONFLICT_NODE_TYPES.has(t));
  if (nodes.length > 0) issues.push(`the path passes a ${nodes.join(", ")} node`);
  return issues;
}

export type TraceScores = { memoryClarityScore: number | null; memoryConsistencyScore: number | null };

/** Mean clarity and share of consistent answers (null without traces). */
export function summarizeTraces(traces: readonly { clarity: number; consistent: boolean }[]): TraceScores {
  if (traces.length === 0) return { memoryClarityScore: null, memoryConsistencyScore: null };
  return {
    memoryClarityScore: traces.reduce((sum, t) => sum + t.clarity, 0) / traces.length,
    memoryConsistencyScore: traces.filter((t) => t.consistent).length / traces.length,
  };
}

/** Up to `count` distinct unordered pairs of 0..n-1 in random order; every pair when count reaches n(n-1)/2. */
export function sampleDistinctPairs(n: number, count: number, random: () => number): [number, number][] {
  const total = (n * (n - 1)) / 2;
  const wanted = Math.min(count, total);
  if (wanted <= 0) return [];
  if (wanted * 2 >= total) {
    const all: [number, number][] = [];
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) all.push([i, j]);
    for (let i = all.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [all[i], all[j]] = [all[j]!, all[i]!];
    }
    return all.slice(0, wanted);
  }
  const seen = new Set<number>();
  const pairs: [number, number][] = [];
  while (pairs.length < wanted) {
    const [i, j] = [Math.floor(random() * n), Math.floor(random() * n)];
    if (i === j) continue;
    const [lo, hi] = i < j ? [i, j] : [j, i];
    if (seen.has(lo * n + hi)) continue;
    seen.add(lo * n + hi);
    pairs.push([lo, hi]);
  }
  return pairs;
}
