import { describe, expect, test } from "bun:test";
import { seededRandom } from "../../src/bench/random.ts";
import {
  calculateTaxonomyPathOverlap,
  calculateTraceClarity,
  hopDecay,
  sampleDistinctPairs,
  summarizeTraces,
  traceInconsistencies,
} from "../../src/maintenance/trace-scores.ts";

const link = (relationship: string, caveats = "") => ({ relationship, caveats });

describe("trace scores (pure)", () => {
  test.each([
    [1, 1],
    [2, 1 / 1.1],
    [4, 1 / 1.3],
    [0, 1],
  ])("hop decay at %p hops is %p (seed: 1 / (1 + 0.1 (hops - 1)))", (hops, decay) => expect(hopDecay(hops)).toBeCloseTo(decay, 12));

  test.each([
    ["/Eng/Infra/DB", "/Eng/Infra/Cache", 2 / 3],
    ["/Eng", "/Eng/Infra", 1],
    ["/eng/x", "/Eng/X", 1],
    ["/A/B", "/C/B", 0],
    ["/", "/Eng", 0],
    ["/", "/", 0],
  ])("taxonomy overlap of %p and %p is %p", (a, b, overlap) => expect(calculateTaxonomyPathOverlap(a, b)).toBeCloseTo(overlap, 12));

  test.each([
    ["one clean hop", { found: true, hops: 1, links: [link("uses")], taxonomyOverlap: 0 }, 1],
    ["two hops, one caveated", { found: true, hops: 2, links: [link("uses", "only in prod"), link("runs_on")], taxonomyOverlap: 0 }, (1 / 1.1) * 0.9],
    ["three hops through a resolved conflict", { found: true, hops: 3, links: [link("uses"), link("version_is"), link("resolves_conflict")], taxonomyOverlap: 1 }, (1 / 1.2) * 0.5],
    ["a subverted claim and two caveats", { found: true, hops: 3, links: [link("subverts_claim", "x"), link("a", "y"), link("b")], taxonomyOverlap: 0 }, (1 / 1.2) * 0.5 * 0.81],
    ["no path: half the taxonomy overlap", { found: false, hops: 0, links: [], taxonomyOverlap: 2 / 3 }, 1 / 3],
    ["no path, no shared taxonomy", { found: false, hops: 0, links: [], taxonomyOverlap: 0 }, 0],
  ])("clarity: %s", (_, trace, clarity) => expect(calculateTraceClarity(trace)).toBeCloseTo(clarity, 12));

  test("inconsistency: the two directions disagree, or the answer runs through a conflict", () => {
    const clean = { found: true, hops: 2, links: [link("uses"), link("runs_on")], nodeTypes: ["service", "database", "host"] };
    expect(traceInconsistencies(clean, { found: true, hops: 2 })).toEqual([]);
    expect(traceInconsistencies({ found: false, hops: 0, links: [], nodeTypes: [] }, { found: false, hops: 0 })).toEqual([]);
    expect(traceInconsistencies(clean, { found: true, hops: 3 })).toEqual(["asked from the other end the path has 3 hops, not 2"]);
    expect(traceInconsistencies(clean, { found: false, hops: 0 })).toEqual(["asked from the other end the memory finds no path"]);
    expect(traceInconsistencies({ ...clean, links: [link("contradicts"), link("uses")], nodeTypes: ["a", "contradiction", "b"] }, { found: true, hops: 2 })).toEqual([
      "the path runs through contradicts",
      "the path passes a contradiction node",
    ]);
  });

  test("scores summarise traces; none gives null", () => {
    expect(summarizeTraces([])).toEqual({ memoryClarityScore: null, memoryConsistencyScore: null });
    const scores = summarizeTraces([
      { clarity: 1, consistent: true },
      { clarity: 0.5, consistent: false },
      { clarity: 0, consistent: true },
      { clarity: 0.3, consistent: true },
    ]);
    expect(scores.memoryClarityScore).toBeCloseTo(0.45, 12);
    expect(scores.memoryConsistencyScore).toBe(0.75);
  });

  test("pair sampling: distinct unordered pairs, all of them when asked for as many, the same for the same seed", () => {
    const all = sampleDistinctPairs(5, 100, seededRandom(1).next);
    expect(all).toHaveLength(10);
    expect(new Set(all.map(([i, j]) => `${i}-${j}`)).size).toBe(10);
    expect(all.every(([i, j]) => i < j && j < 5)).toBe(true);
    const some = sampleDistinctPairs(1000, 50, seededRandom(7).next);
    expect(new Set(some.map(([i, j]) => `${i}-${j}`)).size).toBe(50);
    expect(sampleDistinctPairs(1000, 50, seededRandom(7).next)).toEqual(some);
    expect(sampleDistinctPairs(1000, 50, seededRandom(8).next)).not.toEqual(some);
    expect(sampleDistinctPairs(1, 5, Math.random)).toEqual([]);
  });
});
