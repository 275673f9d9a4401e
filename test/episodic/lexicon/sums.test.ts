import { describe, expect, test } from "bun:test";
import { seededRandom } from "../../../src/bench/random.ts";
import { kthLargest } from "../../../src/episodic/lexicon/prune.ts";
import { RunningSums } from "../../../src/episodic/lexicon/sums.ts";

/** Random runs over `span` slots: each a term's postings (ascending slots, each once) with their parts. */
function randomRuns(seed: number, terms: number, span: number, share: number) {
  const random = seededRandom(seed).next;
  return Array.from({ length: terms }, () => {
    const slots = Array.from({ length: span }, (_, slot) => slot).filter(() => random() < share);
    return { slots: Int32Array.from(slots), parts: Float64Array.from(slots, () => random() * 3) };
  });
}

describe("running sums of the terms scored in full", () => {
  test.each([
    ["one term", 1, 50, 0.3],
    ["three sparse terms", 3, 5_000, 0.02],
    ["five dense terms (most slots in several)", 5, 2_000, 0.8],
    ["terms past the buffers' first size", 4, 40_000, 0.5],
  ])("%s: the sums are a score per slot added term by term, to the bit, slots ascending", (_, terms, span, share) => {
    const runs = randomRuns(terms * 7 + span, terms, span, share);
    const sums = new RunningSums();
    // The same object answers query after query: what it held before is gone.
    sums.add(Int32Array.from([1, 2]), Float64Array.from([9, 9]), 0, 2);
    sums.reset();
    const perSlot = new Float64Array(span);
    for (const run of runs) {
      sums.add(run.slots, run.parts, 0, run.slots.length);
      run.slots.forEach((slot, i) => (perSlot[slot]! += run.parts[i]!));
    }
    const scored = [...new Set(runs.flatMap((run) => [...run.slots]))].sort((a, b) => a - b);
    expect([...sums.slots]).toEqual(scored);
    expect([...sums.scores]).toEqual(scored.map((slot) => perSlot[slot]!));
  });

  test("a run is taken from `from` to `to` of the arrays it is recorded in", () => {
    const sums = new RunningSums();
    const slots = Int32Array.from([4, 7, 1, 2, 7, 9]);
    const parts = Float64Array.from([1, 1, 0.5, 0.25, 2, 4]);
    sums.add(slots, parts, 0, 2);
    sums.add(slots, parts, 2, 6);
    expect([...sums.slots]).toEqual([1, 2, 4, 7, 9]);
    expect([...sums.scores]).toEqual([0.5, 0.25, 1, 3, 4]);
  });

  test("the k-th best sum: of all, or of evenly spaced ones (never above all's); 0 while fewer than k", () => {
    const [run] = randomRuns(5, 1, 3_000, 0.5);
    const sums = new RunningSums();
    expect(sums.kth(1)).toBe(0);
    sums.add(run!.slots, run!.parts, 0, run!.slots.length);
    const all = (k: number) => kthLargest(Float64Array.from(run!.parts), k);
    for (const k of [1, 10, 100]) {
      expect(sums.kth(k)).toBe(all(k));
      const sampled = sums.kth(k, 200);
      expect(sampled).toBeLessThanOrEqual(all(k));
      expect(sampled).toBeGreaterThan(0);
    }
    expect(sums.kth(run!.slots.length + 1)).toBe(0);
    expect(sums.kth(201, 200)).toBe(0);
    // Reading the k-th leaves the sums as they were.
    expect([...sums.scores]).toEqual([...run!.parts]);
  });

  test("the k-th best taken again after a term is added, or after a reset, is of the sums as they are then", () => {
    const sums = new RunningSums();
    sums.add(Int32Array.from([1, 2, 3]), Float64Array.from([1, 2, 3]), 0, 3);
    expect([sums.kth(1), sums.kth(1), sums.kth(2)]).toEqual([3, 3, 2]);
    // The same k as the last one asked: taken again, not remembered.
    sums.add(Int32Array.from([1]), Float64Array.from([5]), 0, 1);
    expect([sums.kth(2), sums.kth(1)]).toEqual([3, 6]);
    sums.reset();
    sums.add(Int32Array.from([4, 5]), Float64Array.from([0.5, 0.25]), 0, 2);
    expect([sums.kth(1), sums.kth(2)]).toEqual([0.5, 0.25]);
  });

  test("candidates are the slots whose sum plus the bounds left reaches the k-th score, ascending", () => {
    const sums = new RunningSums();
    sums.add(Int32Array.from([1, 2, 3, 4, 5]), Float64Array.from([4, 1.5, 6, 1, 2]), 0, 5);
    expect([...sums.candidates(2, 4)]).toEqual([1, 3, 5]);
    expect([...sums.candidates(0, 0)]).toEqual([1, 2, 3, 4, 5]);
    expect([...sums.candidates(0, 7)]).toEqual([]);
  });
});
