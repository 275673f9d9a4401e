import { describe, expect, test } from "bun:test";
import { accumulatePostings, concatPostings, decodePostings, encodePostings, flattenPostings, lastPostingId, type Posting } from "../../../src/episodic/lexicon/postings.ts";

const postings = (ids: number[]): Posting[] => ids.map((id, i) => ({ id, content: i % 3, context: (i + 1) % 2, length: 10 + i * 40 }));

describe("postings", () => {
  test("encode and decode are inverses, large distances and counts included", () => {
    const list = [...postings([100, 101, 300, 70_000]), { id: 5_000_000_000, content: 300, context: 0, length: 20_000 }];
    const bytes = encodePostings(flattenPostings(list), 100);
    expect(decodePostings(bytes, 100)).toEqual(list);
    expect(lastPostingId(bytes, 100)).toBe(5_000_000_000);
  });

  test("concatenated blocks decode as one block's postings", () => {
    const a = postings([10, 12, 19]);
    const b = postings([20, 25]);
    const c = postings([40]);
    // The encoder returns views of its buffer: the parts are copied, as rows read from SQLite are.
    const merged = Uint8Array.from(concatPostings(
      [
        { bytes: Uint8Array.from(encodePostings(flattenPostings(a), 10)), base: 10 },
        { bytes: Uint8Array.from(encodePostings(flattenPostings(b), 20)), base: 20 },
        { bytes: Uint8Array.from(encodePostings(flattenPostings(c), 30)), base: 30 },
      ],
      10,
    ));
    expect(decodePostings(merged, 10)).toEqual([...a, ...b, ...c]);
    expect(merged).toEqual(Uint8Array.from(encodePostings(flattenPostings([...a, ...b, ...c]), 10)));
  });

  test("accumulating adds weight * f / (f + norm + lengthFactor * length) per episode, once listed", () => {
    const list = postings([3, 5, 9]);
    const into = { first: 3, scores: new Float64Array(8), touched: new Int32Array(6), count: 0, slots: new Int32Array(6), parts: new Float64Array(6), recorded: 0 };
    const weights = { weight: 2, norm: 0.3, lengthFactor: 0.01, contextWeight: 0.5 };
    accumulatePostings(encodePostings(flattenPostings(list), 3), 3, weights, into);
    accumulatePostings(encodePostings(flattenPostings(list), 3), 3, weights, into);
    const part = (p: Posting) => {
      const f = p.content + 0.5 * p.context;
      return f === 0 ? 0 : (2 * f) / (f + 0.3 + 0.01 * p.length);
    };
    for (const p of list) expect(into.scores[p.id - 3]).toBeCloseTo(2 * part(p), 12);
    // Each scored episode is listed once, whatever the number of terms that scored it.
    expect([...into.touched.subarray(0, into.count)]).toEqual(list.filter((p) => part(p) > 0).map((p) => p.id - 3));
  });
});
