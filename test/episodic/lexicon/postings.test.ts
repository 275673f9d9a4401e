import { describe, expect, test } from "bun:test";
import { concatPostings, decodePostings, encodePostings, flattenPostings, lastPostingId, recordPostings, type Posting } from "../../../src/episodic/lexicon/postings.ts";

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

  test("recording gives weight * f / (f + norm + lengthFactor * length) per episode with a count, in id order, after what was recorded", () => {
    // The fourth has no count at all (0 in the turn and in the one before): it is not recorded.
    const list = postings([3, 5, 9, 12]);
    const into = { first: 3, slots: new Int32Array(12), parts: new Float64Array(12), recorded: 0 };
    const weights = { weight: 2, norm: 0.3, lengthFactor: 0.01, contextWeight: 0.5 };
    recordPostings(encodePostings(flattenPostings(list), 3), 3, weights, into);
    const first = into.recorded;
    recordPostings(encodePostings(flattenPostings(list), 3), 3, weights, into);
    const part = (p: Posting) => {
      const f = p.content + 0.5 * p.context;
      return f === 0 ? 0 : (2 * f) / (f + 0.3 + 0.01 * p.length);
    };
    const counted = list.filter((p) => part(p) > 0);
    expect(counted).toHaveLength(3);
    expect(into.recorded).toBe(2 * first);
    expect([...into.slots.subarray(0, first)]).toEqual(counted.map((p) => p.id - 3));
    expect([...into.slots.subarray(first, into.recorded)]).toEqual(counted.map((p) => p.id - 3));
    counted.forEach((p, i) => expect(into.parts[i]).toBeCloseTo(part(p), 12));
  });
});
