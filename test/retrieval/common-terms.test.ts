import { describe, expect, test } from "bun:test";
import { approximateEpisodeCount, matchesMoreThan } from "../../src/episodic/lookup.ts";
import { keepRareTerms } from "../../src/retrieval/search-episodes.ts";
import { makeTempDir, openTempGllam } from "../helpers.ts";

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
});
