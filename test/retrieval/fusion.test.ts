import { describe, expect, test } from "bun:test";
import { boostByNeighbours, boostBySpeaker, fuseReciprocalRanks, rankGroups, sortByScore } from "../../src/retrieval/fusion.ts";
import { ftsMatchExpression, queryTerms, splitSpeakerTerms } from "../../src/retrieval/query-text.ts";

describe("fusion", () => {
  test("weighted RRF sums weight / (k + rank) over lists", () => {
    const scores = fuseReciprocalRanks([{ name: "a", weight: 1, ids: [1, 2] }, { name: "b", weight: 0.5, ids: [2, 3] }], 10);
    expect(scores.get(1)).toBeCloseTo(1 / 11);
    expect(scores.get(2)).toBeCloseTo(1 / 12 + 0.5 / 11);
    expect(scores.get(3)).toBeCloseTo(0.5 / 12);
    expect(sortByScore(scores)).toEqual([2, 1, 3]);
    expect(fuseReciprocalRanks([{ name: "off", weight: 0, ids: [9] }], 60).size).toBe(0);
  });

  test("neighbour boost adds a share of the best neighbour, and can surface a neighbour", () => {
    const boosted = boostByNeighbours(new Map([[1, 1], [3, 0.2]]), new Map([[2, [1, 3]], [1, [2]], [3, [2]]]), 0.5);
    expect(boosted.get(2)).toBeCloseTo(0.5);
    expect(boosted.get(1)).toBeCloseTo(1);
    expect(boostByNeighbours(new Map([[1, 1]]), new Map([[2, [1]]]), 0)).toEqual(new Map([[1, 1]]));
  });

  test("speaker boost multiplies only the named speakers' items", () => {
    const out = boostBySpeaker(new Map([[1, 1], [2, 1]]), new Map([[1, "Ann"], [2, "Bob"]]), ["Ann"], 0.5);
    expect([...out]).toEqual([[1, 1.5], [2, 1]]);
  });

  test("groups rank by their best item plus a decaying share of the rest", () => {
    const items = [
      { group: "a", score: 1 },
      { group: "b", score: 0.8 },
      { group: "b", score: 0.6 },
      { group: "c", score: 0.9 },
    ];
    expect(rankGroups(items, 0.5)).toEqual(["b", "a", "c"]);
    expect(rankGroups(items, 0)).toEqual(["a", "c", "b"]);
  });
});

describe("query text", () => {
  test.each([
    ["When did Caroline go to the LGBTQ support group?", ["caroline", "go", "lgbtq", "support", "group"]],
    ["what is it", ["what", "is", "it"]],
    ["Melanie's kids' names", ["melanie", "kids", "names"]],
    ["", []],
  ])("queryTerms(%p)", (query, terms) => {
    expect(queryTerms(query)).toEqual(terms);
  });

  test("FTS expressions quote every term and filter columns", () => {
    expect(ftsMatchExpression(['say "hi"', "x"], false)).toBe('{content} : ("say ""hi""" OR "x")');
    expect(ftsMatchExpression(["x"], true)).toBe('{content context} : ("x")');
    expect(ftsMatchExpression([], true)).toBeUndefined();
  });

  test("speaker names become a preference, not a word to match", () => {
    expect(splitSpeakerTerms(["caroline", "support", "group"], ["Caroline Smith", "Mel"])).toEqual({
      speakerTerms: ["caroline"],
      contentTerms: ["support", "group"],
      speakers: ["Caroline Smith"],
    });
  });
});
