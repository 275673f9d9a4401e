import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { catchUpLexicon, maintainLexicon, type LexiconSizes } from "../../../src/episodic/lexicon/build.ts";
import { hasLexicon, rankByLexicon } from "../../../src/episodic/lexicon/rank.ts";
import { bm25Episodes } from "../../../src/episodic/lookup.ts";
import { Gllam } from "../../../src/gllam/gllam.ts";
import { ftsMatchExpression } from "../../../src/retrieval/query-text.ts";
import { localEmbedder, makeTempDir, openTempGllam } from "../../helpers.ts";

const SMALL: LexiconSizes = { from: 16, block: 8, fanout: 2 };
const WORDS = ["hiking", "lake", "camping", "pottery", "painted", "sunrise", "guitar", "concert", "garden", "tomatoes", "kids", "museum"];

/** 64 distinct turns in 8 sessions: word counts and lengths vary, so no two score alike. */
function corpus(count: number, offset = 0) {
  return Array.from({ length: count }, (_, n) => {
    const i = n + offset;
    const words = Array.from({ length: 1 + (i % 5) }, (_, j) => WORDS[(i * 7 + j * 3) % WORDS.length]!);
    return { sessionId: `s${Math.floor(i / 8)}`, seq: i % 8, speaker: i % 3 ? "Ann Lee" : "Bo", content: `${words.join(" ")} ${"and then ".repeat(i % 4)}turn ${i}` };
  });
}

/** As every write would, until nothing waits (one write makes at most two blocks). */
const maintain = (gllam: Gllam) => {
  for (let i = 0; i < 10; i++) gllam.store.transaction(() => maintainLexicon(gllam.store.db(), ["default"], SMALL));
};
const blocks = (db: Database) => db.query<{ block: number; last_id: number; level: number }, []>("SELECT block, last_id, level FROM episode_lexicon_blocks ORDER BY block").all();
const fts = (db: Database, words: string[], limit = 10) => bm25Episodes(db, ftsMatchExpression(words, true)!, { scope: "default" }, limit, 0.5).map((hit) => hit.episodeId);
const lexicon = (db: Database, words: string[], limit = 10) => rankByLexicon(db, "default", words, ftsMatchExpression(words, true)!, limit, 0.5);

describe("the episode lexicon", () => {
  test("a scope below its size has none; at it, blocks merge by level and rank as FTS5's bm25() does", async () => {
    const gllam = await openTempGllam(makeTempDir());
    const db = gllam.store.db();
    gllam.addEpisodes(corpus(15));
    gllam.store.transaction(() => maintainLexicon(db, ["default"], SMALL));
    expect(hasLexicon(gllam.dbRO(), "default")).toBe(false);
    expect(lexicon(gllam.dbRO(), ["lake"])).toBeUndefined();

    gllam.addEpisodes(corpus(49, 15));
    // One write makes two blocks of 8 (a backlog is spread over the writes that follow).
    gllam.store.transaction(() => maintainLexicon(db, ["default"], SMALL));
    expect(blocks(db)).toEqual([{ block: 1, last_id: 16, level: 1 }]);
    maintain(gllam);
    // 64 turns, blocks of 8 merged two at a time: one block of all 64 at level 3.
    expect(blocks(db)).toEqual([{ block: 1, last_id: 64, level: 3 }]);
    for (const words of [["lake"], ["pottery", "sunrise"], ["hiking", "kids", "museum"], ["turn", "then"], ["concert", "guitar", "tomatoes", "garden"]]) {
      expect(lexicon(gllam.dbRO(), words)).toEqual(fts(gllam.dbRO(), words));
    }
    gllam.close();
  });

  test("catching up makes every block owed at once (the sleep cycle's step), and nothing when none is", async () => {
    const gllam = await openTempGllam(makeTempDir());
    gllam.addEpisodes(corpus(60));
    expect(catchUpLexicon(gllam.store, "default", SMALL)).toBe(7);
    expect(blocks(gllam.store.db()).map((block) => [block.block, block.last_id, block.level])).toEqual([[1, 32, 2], [33, 48, 1], [49, 56, 0]]);
    expect(catchUpLexicon(gllam.store, "default", SMALL)).toBe(0);
    expect(lexicon(gllam.dbRO(), ["garden", "kids"])).toBeDefined();
    gllam.close();
  });

  test("episodes past the last block are ranked from their text; a new block joins when enough wait", async () => {
    const gllam = await openTempGllam(makeTempDir());
    const db = gllam.store.db();
    gllam.addEpisodes(corpus(16));
    maintain(gllam);
    const late = gllam.addEpisodes([{ sessionId: "late", seq: 0, content: "a zeppelin over the lake" }, { sessionId: "late", seq: 1, content: "the zeppelin landed" }]).ids;
    maintain(gllam);
    expect(blocks(db).map((block) => block.last_id)).toEqual([16]);
    expect(new Set(lexicon(gllam.dbRO(), ["zeppelin"]))).toEqual(new Set(late));
    // The turn after the first holds "zeppelin" in what was said and in the turn before it: it ranks first.
    expect(lexicon(gllam.dbRO(), ["zeppelin"])![0]).toBe(late[1]!);
    gllam.addEpisodes(corpus(6, 16));
    maintain(gllam);
    expect(blocks(db).map((block) => [block.block, block.last_id])).toEqual([[1, 16], [17, 24]]);
    expect(new Set(lexicon(gllam.dbRO(), ["zeppelin"]))).toEqual(new Set(late));
    gllam.close();
  });

  test("forgetting a turn indexes its block again: its words are gone, and its neighbour's context with them", async () => {
    const gllam = await openTempGllam(makeTempDir());
    const db = gllam.store.db();
    const ids = gllam.addEpisodes([...corpus(10), { sessionId: "x", seq: 0, content: "my xylophone lessons" }, { sessionId: "x", seq: 1, content: "sounds lovely" }, ...corpus(12, 10)]).ids;
    maintain(gllam);
    const xylophone = ids[10]!;
    expect(new Set(lexicon(gllam.dbRO(), ["xylophone"]))).toEqual(new Set([xylophone, ids[11]!]));
    gllam.forget({ episode: xylophone });
    expect(lexicon(gllam.dbRO(), ["xylophone"])).toEqual([]);
    expect(db.query("SELECT count(*) AS n FROM episode_lexicon_postings WHERE term = 'xylophon'").get()).toEqual({ n: 0 });
    // The rest still ranks as FTS5 does.
    expect(lexicon(gllam.dbRO(), ["lake", "kids"])).toEqual(fts(gllam.dbRO(), ["lake", "kids"]));
    gllam.close();
  });

  test("a file made before the lexicon, opened read-only, is searched through FTS5", async () => {
    const path = join(makeTempDir(), "old.db");
    const writer = await Gllam.open(path, { embedder: localEmbedder });
    writer.addEpisodes(corpus(12));
    writer.close();
    const raw = new Database(path);
    raw.run("DROP TABLE episode_lexicon_postings");
    raw.run("DROP TABLE episode_lexicon_blocks");
    raw.close();
    const reader = await Gllam.open(path, { readOnly: true, embedder: localEmbedder });
    expect(hasLexicon(reader.dbRO(), "default")).toBe(false);
    expect((await reader.searchEpisodes("pottery sunrise", { k: 3 })).hits.length).toBeGreaterThan(0);
    reader.close();
  });
});
