import { describe, expect, test } from "bun:test";
import { ndcgAtK, percentile, recallAllAtK, recallAnyAtK, recallAtK, summarize } from "../../src/bench/metrics.ts";

describe("retrieval metrics", () => {
  const relevant = new Set(["a", "b"]);
  test.each([
    [["a", "x", "b"], 1, 0.5, 1, 0, 1],
    [["a", "x", "b"], 3, 1, 1, 1, 1.5 / (1 + 1 / Math.log2(3))],
    [["x", "a"], 2, 0.5, 1, 0, 1 / Math.log2(3) / (1 + 1 / Math.log2(3))],
    [["x", "y"], 2, 0, 0, 0, 0],
  ] as const)("%p at k=%p", (retrieved, k, recall, any, all, ndcg) => {
    expect(recallAtK(retrieved, relevant, k)).toBeCloseTo(recall);
    expect(recallAnyAtK(retrieved, relevant, k)).toBe(any);
    expect(recallAllAtK(retrieved, relevant, k)).toBe(all);
    if (k !== 1) expect(ndcgAtK(retrieved, relevant, k)).toBeCloseTo(ndcg);
  });

  test("percentiles are nearest-rank; summaries average overall and per group", () => {
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
    expect(percentile([1, 2, 3, 4, 100], 95)).toBe(100);
    expect(summarize([{ group: "x", metrics: { m: 1 } }, { group: "y", metrics: { m: 0 } }, { group: "y", metrics: { m: 0.5 } }])).toEqual({
      overall: { m: 0.5 },
      byGroup: { x: { questions: 1, m: 1 }, y: { questions: 2, m: 0.25 } },
    });
  });
});
