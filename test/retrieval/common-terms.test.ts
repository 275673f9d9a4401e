import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { approximateEpisodeCount, bm25Episodes, matchesMoreThan, termDocuments } from "../../src/episodic/lookup.ts";
import { Gllam } from "../../src/gllam/gllam.ts";
import { keepRareTerms } from "../../src/retrieval/search-episodes.ts";
import { localEmbedder, makeTempDir, openTempGllam } from "../helpers.ts";

describe("common query words in a large file", () => {
  test.each([
    [["go", "lgbtq", "group"], ["go"], ["lgbtq", "group"]],
    [["go", "support"], ["go", "support"], ["go", "support"]],
    [["ferry"], [], ["ferry"]],
  ])("%j with %j common keeps %j", (terms, common, kept) => {
    expect(keepRareTerms(terms, (term) => common.includes(term))).toEqual(kept);
  });

  test("matches are counted only up to the cap; the file's size is read from the highest id", async () => {
    const gllam = await openTempGllam(makeTempDir());
    gllam.addEpisodes(Array.from({ length: 12 }, (_, i) => ({ sessionId: "s", seq: i, content: i < 9 ? `we go to the lake ${i}` : `the ferry leaves ${i}` })));
    const db = gllam.dbRO();
    expect(approximateEpisodeCount(db)).toBe(12);
    expect(matchesMoreThan(db, '{content} : "go"', 8)).toBe(true);
    expect(matchesMoreThan(db, '{content} : "go"', 9)).toBe(false);
    expect(matchesMoreThan(db, '"ferry"', 3)).toBe(false);
    gllam.close();
  });

  test("a word's episodes are read from the index, also through a read-only handle; a stemmed form is not found as written", async () => {
    const path = join(makeTempDir(), "terms.db");
    const writer = await Gllam.open(path, { embedder: localEmbedder });
    writer.addEpisodes(Array.from({ length: 12 }, (_, i) => ({ sessionId: "s", seq: i, content: i < 9 ? `we go to the lake ${i}` : `the boat likely sails ${i}` })));
    writer.close();
    const gllam = await Gllam.open(path, { readOnly: true, embedder: localEmbedder });
    const db = gllam.dbRO();
    // In any column: "go" is said in 9 turns and is the context (the turn before) of a 10th.
    expect([termDocuments(db, "go"), termDocuments(db, "boat"), termDocuments(db, "tangier")]).toEqual([10, 3, 0]);
    // Indexed by porter as "like": the search counts its matches instead.
    expect([termDocuments(db, "likely"), termDocuments(db, "like")]).toEqual([0, 3]);
    gllam.close();
  });
});

describe("BM25 candidates in a file shared by scopes", () => {
  test("the scope's matches are found when another scope's rank above them all", async () => {
    const gllam = await openTempGllam(makeTempDir());
    gllam.addEpisodes(Array.from({ length: 30 }, (_, i) => ({ scope: "other", sessionId: "s", seq: i, content: `ferry ferry ferry ${i}` })));
    gllam.addEpisodes(Array.from({ length: 3 }, (_, i) => ({ sessionId: "s", seq: i, content: `a long day and then the ferry home with friends ${i}` })));
    const db = gllam.dbRO();
    const ids = (scope: string, limit: number) => bm25Episodes(db, '"ferry"', { scope }, limit, 0).map((hit) => hit.episodeId);
    expect(ids("default", 5)).toHaveLength(3);
    expect(ids("other", 5)).toHaveLength(5);
    // Ranked alone or through the join, the same best ones in the same order.
    expect(ids("other", 40)).toEqual(bm25Episodes(db, '"ferry"', { scope: "other", sessionId: "s" }, 40, 0).map((hit) => hit.episodeId));
    gllam.close();
  });
});
