import { describe, expect, test } from "bun:test";
import { createWordSpace, knownPart, nearestWords, spaceWords } from "../../src/router/word-space.ts";

// Every row shares a large common direction (as raw static vectors do); what sets words apart is small.
const common = (tail: number[]) => Float32Array.from([5, ...tail]);
const words = ["cat", "dog", "car", "bus", "tea"];
const vectors = [common([1, 0.9, 0, 0]), common([0.9, 1, 0, 0]), common([0, 0, 1, 0.9]), common([0, 0, 0.9, 1]), common([0.1, 0.1, 0.1, 0.1])];
const read = (word: string, into: Float32Array) => into.set(vectors[words.indexOf(word)]!);
const spaceOf = (dims?: number) => createWordSpace(words, read, 5, dims);

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
