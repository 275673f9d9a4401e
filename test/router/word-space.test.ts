import { describe, expect, test } from "bun:test";
import { createWordSpace, encodeRows, knownPart, nearestWordsOfEach, prefilterFloor, spaceWords, wordSpaceOf, type NearWord, type WordSpace } from "../../src/router/word-space.ts";
import { loadStaticEmbedder } from "../../src/embed/static/bundled-table.ts";
import { ensureTestStaticTable } from "../static-table.ts";

// Every row shares a large common direction (as raw static vectors do); what sets words apart is small.
const common = (tail: number[]) => Float32Array.from([5, ...tail]);
const words = ["cat", "dog", "car", "bus", "tea"];
const vectors = [common([1, 0.9, 0, 0]), common([0.9, 1, 0, 0]), common([0, 0, 1, 0.9]), common([0, 0, 0.9, 1]), common([0.1, 0.1, 0.1, 0.1])];
const read = (word: string, into: Float32Array) => into.set(vectors[words.indexOf(word)]!);
const spaceOf = (dims?: number) => createWordSpace(words, read, 5, dims);
const nearestWords = (space: WordSpace, word: string, options: { count: number; floor: number }) => nearestWordsOfEach(space, [word], options)[0]!;

describe("word space", () => {
  test("centred on the words' mean, a word's neighbours are those sharing its own direction", () => {
    const space = spaceOf();
    expect(nearestWords(space, "cat", { count: 2, floor: 0.5 }).map((near) => near.word)).toEqual(["dog"]);
    expect(nearestWords(space, "car", { count: 3, floor: -1 }).map((near) => near.word)[0]).toBe("bus");
  });

  test("raw vectors would make every word near every other (why the space is centred)", () => {
    const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0) / Math.hypot(...a) / Math.hypot(...b);
    expect(cosine(vectors[0]!, vectors[2]!)).toBeGreaterThan(0.9);
  });

  test("the floor, the count and the word itself are honoured; a word outside the space has no neighbours", () => {
    const space = spaceOf();
    const all = nearestWords(space, "cat", { count: 10, floor: -1 });
    expect(all.map((near) => near.word)).not.toContain("cat");
    expect(all.length).toBe(4);
    expect(all.map((near) => near.similarity)).toEqual([...all.map((near) => near.similarity)].sort((a, b) => b - a));
    expect(nearestWords(space, "cat", { count: 1, floor: -1 })).toHaveLength(1);
    expect(nearestWords(space, "cat", { count: 10, floor: 0.99 })).toEqual([]);
    expect(nearestWords(space, "zebra", { count: 10, floor: -1 })).toEqual([]);
  });

  test("a lower floor after a higher one finds the words the first left out (the kept list is not reused)", () => {
    const space = spaceOf();
    expect(nearestWords(space, "cat", { count: 10, floor: 0.5 }).length).toBe(1);
    expect(nearestWords(space, "cat", { count: 10, floor: -1 }).length).toBe(4);
  });

  test("only the first dims dimensions count when asked", () => {
    // On the first two dimensions (the common one and cat/dog's), car and bus differ from tea only by it.
    const space = spaceOf(2);
    expect(space.dims).toBe(2);
    expect(nearestWords(space, "cat", { count: 1, floor: -1 })[0]!.word).toBe("dog");
  });

  test("spaceWords: lower-cased letters only, three or more, no stop words, once", () => {
    expect(spaceWords(["The", "Pottery", "pottery", "ok", "don't", "x2", "camping", "What"])).toEqual(["pottery", "camping"]);
  });
});

test("knownPart: the longest known start or end of a word, five letters or more, never the word itself", () => {
  const known = (words: string[]) => (part: string) => words.includes(part);
  expect(knownPart("mentorship", known(["mentor", "mentors", "ship"]))).toBe("mentors");
  expect(knownPart("destress", known(["stress", "dest"]))).toBe("stress");
  expect(knownPart("kickboxing", known(["kick", "box"]))).toBeUndefined();
  expect(knownPart("stressed", known(["stressed", "stresse"]))).toBeUndefined(); // two letters or more are left over
});

/** The scan as it was before the int8 prefilter: every word scored exactly (the reference the fast scan must match). */
function everyWordScored(space: WordSpace, word: string, floor: number, count: number): NearWord[] {
  const row = space.rowOf.get(word)!;
  const found: NearWord[] = [];
  for (let i = 0; i < space.words.length; i++) {
    if (i === row) continue;
    let score = 0;
    for (let k = 0; k < space.dims; k++) score += space.rows[i * space.dims + k]! * space.rows[row * space.dims + k]!;
    if (score >= floor) found.push({ word: space.words[i]!, similarity: score });
  }
  return found.sort((a, b) => b.similarity - a.similarity || a.word.localeCompare(b.word)).slice(0, Math.max(count, 32));
}

/** A seeded generator (mulberry32): the same random spaces on every run. */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("the int8 prefilter finds exactly what scoring every word finds", () => {
  const FLOORS = [-1, 0, 0.3, 0.55, 0.7, 0.9];
  const expectSameNeighbours = (space: WordSpace, probes: string[]) => {
    for (const floor of FLOORS) {
      const expected = probes.map((word) => everyWordScored(space, word, floor, 18).slice(0, 18));
      // One at a time, then all together (scanned three to a pass), then from what was kept.
      for (const [i, word] of probes.entries()) {
        space.neighbours.clear();
        expect({ word, floor, near: nearestWords(space, word, { count: 18, floor }) }).toEqual({ word, floor, near: expected[i]! });
      }
      space.neighbours.clear();
      expect(nearestWordsOfEach(space, probes, { count: 18, floor })).toEqual(expected);
      expect(nearestWordsOfEach(space, [...probes].reverse(), { count: 18, floor })).toEqual([...expected].reverse());
    }
  };

  test.each([
    ["96 dimensions (the shipped projection)", 96, 0.02],
    ["100 dimensions (codes padded to 112)", 100, 0],
    ["5 dimensions (codes padded to 16)", 5, 0.5],
  ])("random words clustered around a few directions, %s", (_, width, spread) => {
    const random = seeded(width);
    const centres = Array.from({ length: 8 }, () => Array.from({ length: width }, () => random() - 0.5));
    const vectors = Array.from({ length: 600 }, (_, i) => centres[i % 8]!.map((x) => x + (random() - 0.5) * (spread + (i % 5) * 0.3)));
    vectors[7] = vectors[7]!.map(() => 0); // a word at the centre of nothing: a zero row after centring is scored too
    const words = vectors.map((_, i) => `w${i}`);
    const space = createWordSpace(words, (word, into) => into.set(vectors[words.indexOf(word)]!), width);
    expectSameNeighbours(space, words.filter((_, i) => i % 15 === 0));
  });

  test("the test static table's words, on the shipped projection", async () => {
    const space = wordSpaceOf(loadStaticEmbedder(await ensureTestStaticTable()));
    const probes = ["people", "house", "money", "friends", "music", "water", "country", "school", "happy", "dog", "car", "food", "game", "doctor", "summer"].filter((word) => space.rowOf.has(word));
    expect(probes.length).toBeGreaterThan(10);
    expectSameNeighbours(space, probes);
  });
});

test("nearestWordsOfEach: a word twice or outside the space, and a lower count from what was kept", () => {
  const space = spaceOf();
  const [cat, zebra, again, dog] = nearestWordsOfEach(space, ["cat", "zebra", "cat", "dog"], { count: 2, floor: -1 });
  expect(zebra).toEqual([]);
  expect(again).toEqual(cat!);
  expect(cat!.map((near) => near.word)[0]).toBe("dog");
  expect(dog!.map((near) => near.word)[0]).toBe("cat");
  expect(nearestWordsOfEach(space, ["cat"], { count: 1, floor: -1 })[0]).toEqual(cat!.slice(0, 1));
});

test("encodeRows: codes of ±127 at each row's largest component, padded to 16; the angle bounds every row's code", () => {
  const rows = Float32Array.from([0.6, -0.8, 0, 0, 0, 0]);
  const { codes, codeDims, codeNorms, codeAngle } = encodeRows(rows, 3);
  expect(codeDims).toBe(16);
  expect([...codes.subarray(0, 3)]).toEqual([95, -127, 0]);
  expect([...codeNorms]).toEqual([Math.hypot(95, 127), 0]);
  expect([...codes.subarray(16, 19)]).toEqual([0, 0, 0]);
  expect(codeAngle).toBeGreaterThan(0);
  expect(codeAngle).toBeLessThan(0.01);
});

test("prefilterFloor: lower than the floor by twice the codes' angle, everything for a floor at -1", () => {
  expect(prefilterFloor(0.55, 0)).toBeCloseTo(0.55, 3);
  expect(prefilterFloor(0.55, 0.02)).toBeLessThan(Math.cos(Math.acos(0.55) + 0.04));
  expect(prefilterFloor(-1, 0.01)).toBe(-Infinity);
  expect(prefilterFloor(0, 1)).toBe(-Infinity);
});
