import { describe, expect, test } from "bun:test";
import { seededRandom } from "../../src/bench/random.ts";
import { boostByNeighbours, boostBySpeaker, fuseReciprocalRanks, boostContenders, rankGroups, sortByScore, speakerFactors } from "../../src/retrieval/fusion.ts";
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

  // Turns 0..n-1 in sessions of random lengths; a turn's neighbours are the turns before and after it in its session.
  function randomSearch(seed: number) {
    const random = seededRandom(seed);
    const n = 400 + random.int(400);
    const sessionOf: number[] = [];
    for (let session = 0; sessionOf.length < n; session++) for (let i = 1 + random.int(30); i > 0 && sessionOf.length < n; i--) sessionOf.push(session);
    const speakerOf = new Map(sessionOf.map((_, id) => [id, ["Ann", "Bob", "Cy"][random.int(3)]!]));
    const list = (length: number) => Array.from({ length }, () => random.int(n));
    const fused = fuseReciprocalRanks(
      [
        { name: "bm25", weight: 1, ids: [...new Set(list(1 + random.int(120)))] },
        { name: "static", weight: 0.03 + random.next() * 0.3, ids: [...new Set(list(random.int(120)))] },
      ],
      60,
    );
    const named = random.next() < 0.5 ? [] : ["Ann", "Bob", "Cy"].slice(random.int(3), 3);
    return { sessionOf, speakerOf, fused, named, k: 1 + random.int(30), weight: random.pick([0.05, 0.05, 0.2, 1, 5])!, boost: random.pick([0, 0.5, 2])! };
  }
  const adjacency = (sessionOf: number[], ids: number[]) => {
    const neighbours = new Map<number, number[]>();
    const add = (a: number, b: number) => neighbours.set(a, [...new Set([...(neighbours.get(a) ?? []), b])]);
    for (const id of ids) for (const other of [id - 1, id + 1]) if (sessionOf[other] === sessionOf[id]) (add(id, other), add(other, id));
    return neighbours;
  };
  const topK = (scores: Map<number, number>, k: number) => sortByScore(scores).slice(0, k).map((id) => [id, scores.get(id)]);

  test("the speakers and neighbours of the contenders alone give the same top k, with the same scores, as every candidate's", () => {
    let pruned = 0;
    let fallbacks = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const { sessionOf, speakerOf, fused, named, k, weight, boost } = randomSearch(seed);
      const all = boostBySpeaker(boostByNeighbours(fused, adjacency(sessionOf, [...fused.keys()]), weight), speakerOf, named, boost);
      const maxFactor = named.length > 0 ? 1 + boost : 1;
      // As a search asks: with no speaker read, then with the speakers of the first answer's.
      const reachable = boostContenders(fused, k, weight, () => (named.length > 0 ? undefined : 1), maxFactor);
      if (reachable === undefined) {
        fallbacks++;
        continue;
      }
      const known = new Map(reachable.map((id) => [id, speakerOf.get(id)!]));
      const factor = speakerFactors(known, named, boost);
      const contenders = boostContenders(fused, k, weight, (id) => (known.has(id) ? factor(id) : undefined), maxFactor)!;
      expect(contenders.every((id) => known.has(id))).toBe(true);
      if (contenders.length < fused.size) pruned++;
      const some = boostBySpeaker(boostByNeighbours(fused, adjacency(sessionOf, contenders), weight), known, named, boost);
      expect(topK(some, k)).toEqual(topK(all, k));
    }
    // Most searches prune, and large weights (a non-candidate could win) fall back.
    expect(pruned).toBeGreaterThan(150);
    expect(fallbacks).toBeGreaterThan(20);
  });

  test.each([
    ["fewer items than k", new Map([[1, 1], [2, 0.5]]), 3, 0.05, 1],
    ["a lift that could make a non-candidate win", new Map([[1, 1], [2, 0.1]]), 2, 0.2, 1],
    ["a negative weight", new Map([[1, 1], [2, 0.5]]), 1, -0.1, 1],
    ["a factor below 1", new Map([[1, 1], [2, 0.5]]), 1, 0.05, 0.5],
    ["a negative score", new Map([[1, 1], [2, -0.5]]), 1, 0.05, 1],
  ])("every candidate's neighbours are needed with %s", (_, scores, k, weight, maxFactor) => {
    expect(boostContenders(scores, k, weight, () => 1, maxFactor)).toBeUndefined();
  });

  test("a candidate that cannot reach the k-th score with the largest lift is no contender", () => {
    // k-th (2nd) score 0.8; the lift is 0.05 x 1: 0.5 + 0.05 < 0.8, 0.76 + 0.05 >= 0.8.
    expect(boostContenders(new Map([[1, 1], [2, 0.8], [3, 0.76], [4, 0.5]]), 2, 0.05, () => 1, 1)).toEqual([1, 2, 3]);
    // A named speaker's turn counts with its factor: 0.5 x 2 makes the k-th score 1, which 2 and 3 cannot reach.
    expect(boostContenders(new Map([[1, 1], [2, 0.8], [3, 0.76], [4, 0.5]]), 2, 0.05, (id) => (id === 4 ? 2 : 1), 2)).toEqual([1, 4]);
    // A speaker not read yet may have any factor up to the largest: (0.3 + 0.01) x 2 cannot reach 0.8 (the k-th score), (0.5 + 0.01) x 2 can.
    expect(boostContenders(new Map([[1, 1], [2, 0.8], [3, 0.3], [4, 0.5]]), 2, 0.01, () => undefined, 2)).toEqual([1, 2, 4]);
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
