import { describe, expect, test } from "bun:test";
import { boundOrder, boundsLeft, cannotReach, kthLargest, rankCandidates, SLACK, termBound } from "../../../src/episodic/lexicon/prune.ts";

describe("exact top-k pruning", () => {
  test("a term's bound is above its part for every count and length (norm > 0), and 0 when no episode holds it", () => {
    const weight = 7.3;
    const norm = 1.2 * (1 - 0.75);
    for (const lengthFactor of [(1.2 * 0.75) / 3, (1.2 * 0.75) / 40]) {
      for (const frequency of [0.5, 1, 2, 7, 300]) {
        for (const length of [0, 1, 10, 5000]) expect((weight * frequency) / (frequency + norm + lengthFactor * length)).toBeLessThan(termBound(weight, 3));
      }
    }
    expect(termBound(weight, 0)).toBe(0);
  });

  test("terms go highest bound first (ties in query order), and each step knows the bounds left", () => {
    const bounds = [2, 9, 2, 5];
    const order = boundOrder(bounds);
    expect(order).toEqual([1, 3, 0, 2]);
    expect(boundsLeft(bounds, order)).toEqual([18, 9, 4, 2, 0]);
  });

  test("a reach is left out only when clearly below the k-th score (sums in another order differ by ulps)", () => {
    expect(cannotReach(4.99, 5)).toBe(true);
    expect(cannotReach(5, 5)).toBe(false);
    expect(cannotReach(5 * (1 - SLACK / 2), 5)).toBe(false);
    // A tie can be broken by id either way: it is never left out.
    expect(cannotReach(0.1 + 0.2, 0.3)).toBe(false);
  });

  test("the k-th largest is the sorted k-th, duplicates included", () => {
    const values = [5, 1, 9, 9, 3, 7, 7, 7, 2];
    for (let k = 1; k <= values.length; k++) expect(kthLargest(Float64Array.from(values), k)).toBe([...values].sort((a, b) => b - a)[k - 1]!);
  });

  test("candidates rank by their parts summed in term order, ties by slot, the best `limit` of them", () => {
    // Three candidates, two terms: slots 30 and 10 tie, 20 is best.
    const table = Float64Array.from([1, 2, 2.5, 2, 2, 1]);
    expect(rankCandidates(Int32Array.from([30, 20, 10]), table, 2, 3)).toEqual([20, 10, 30]);
    expect(rankCandidates(Int32Array.from([30, 20, 10]), table, 2, 2)).toEqual([20, 10]);
    // Summed from the first term on: 0.1 + 0.2 + 0.3, not 0.3 + 0.2 + 0.1 (the two differ in the last bit).
    const order = Float64Array.from([0.1, 0.2, 0.3, 0.3, 0.2, 0.1]);
    expect(0.1 + 0.2 + 0.3).not.toBe(0.3 + 0.2 + 0.1);
    expect(rankCandidates(Int32Array.from([2, 1]), order, 3, 2)).toEqual(0.1 + 0.2 + 0.3 > 0.3 + 0.2 + 0.1 ? [2, 1] : [1, 2]);
  });
});
