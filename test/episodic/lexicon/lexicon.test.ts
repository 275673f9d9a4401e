import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { catchUpLexicon, invertTurns, maintainLexicon, readTurnsAfter, type LexiconSizes } from "../../../src/episodic/lexicon/build.ts";
import { decodePostings, type Posting } from "../../../src/episodic/lexicon/postings.ts";
import { bm25Idf, hasLexicon, rankByLexicon } from "../../../src/episodic/lexicon/rank.ts";
import { lexiconTerms } from "../../../src/episodic/lexicon/terms.ts";
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

/**
 * The ranking without pruning, the slow way: every posting of every term (the blocks' rows and the
 * turns past them), each term's part added in the query's term order, ties by id.
 */
function rankEveryPosting(db: Database, words: string[], limit: number, contextWeight = 0.5): number[] {
  const spans = db.query<{ block: number; last_id: number; documents: number; tokens: number }, []>("SELECT block, last_id, documents, tokens FROM episode_lexicon_blocks WHERE scope = 'default'").all();
  const tailTurns = readTurnsAfter(db, "default", Math.max(...spans.map((span) => span.last_id)), 1_000_000);
  const tail = invertTurns(tailTurns).byTerm;
  const indexed = spans.reduce((sum, span) => sum + span.documents, 0);
  const averageLength = spans.reduce((sum, span) => sum + span.tokens, 0) / indexed;
  const read = db.query<{ block: number; postings: Uint8Array }, [string]>("SELECT block, postings FROM episode_lexicon_postings WHERE scope = 'default' AND term = ?");
  const scores = new Map<number, number>();
  for (const term of new Set(words.flatMap(lexiconTerms))) {
    const flat = tail.get(term) ?? [];
    const postings: Posting[] = read.all(term).flatMap((row) => decodePostings(row.postings, row.block));
    for (let i = 0; i < flat.length; i += 4) postings.push({ id: flat[i]!, content: flat[i + 1]!, context: flat[i + 2]!, length: flat[i + 3]! });
    const weight = bm25Idf(indexed + tailTurns.length, postings.length) * (1.2 + 1);
    for (const p of postings) {
      const f = p.content + contextWeight * p.context;
      if (f > 0) scores.set(p.id, (scores.get(p.id) ?? 0) + (weight * f) / (f + 1.2 * (1 - 0.75) + ((1.2 * 0.75) / averageLength) * p.length));
    }
  }
  return [...scores].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, limit).map(([id]) => id);
}

/** corpus(), each session twice (the copies score alike: ties, broken by id), and a few turns with rare words. */
function tiedCorpus() {
  const base = corpus(48);
  const copies = base.map((turn) => ({ ...turn, sessionId: `copy-${turn.sessionId}` }));
  const rare = ["a zeppelin over the lake then", "zeppelin zeppelin and then turn", "the quokka smiled at the kids"].map((content, seq) => ({ sessionId: "rare", seq, content }));
  return [...base, ...rare, ...copies];
}

const QUERIES = [["zeppelin", "turn", "then"], ["quokka", "garden", "tomatoes", "hiking", "museum", "pottery", "sunrise"], ["quokka", "kids", "lake", "turn"], ["lake", "kids"], ["garden", "tomatoes", "hiking", "museum", "turn"], ["turn"], ["zeppelin", "quokka", "then", "and"]];

describe("the episode lexicon", () => {
  test("pruned ranking is the ranking of every posting, ties by id: through merges, the turns past the blocks, and forgetting", async () => {
    const gllam = await openTempGllam(makeTempDir());
    const ids = gllam.addEpisodes(tiedCorpus()).ids;
    maintain(gllam);
    gllam.addEpisodes(corpus(5, 100).map((turn) => ({ ...turn, sessionId: `late-${turn.sessionId}`, content: `${turn.content} zeppelin` })));
    maintain(gllam);
    const db = gllam.dbRO();
    expect(blocks(db).length).toBeGreaterThan(1);
    const check = () => {
      for (const words of QUERIES) for (const limit of [1, 3, 10, 200]) expect(lexicon(db, words, limit)).toEqual(rankEveryPosting(db, words, limit));
      // Without the turn before, and with it weighing as much as the turn itself.
      for (const contextWeight of [0, 1]) {
        for (const words of QUERIES) expect(rankByLexicon(db, "default", words, ftsMatchExpression(words, true)!, 5, contextWeight)).toEqual(rankEveryPosting(db, words, 5, contextWeight));
      }
    };
    check();
    // A first-ranked turn with a rare word, one of two tied copies, and a turn past the blocks.
    gllam.forget({ episode: ids[49]! });
    gllam.forget({ episode: ids[51 + 3]! });
    gllam.forget({ episode: Math.max(...ids) + 2 });
    check();
    gllam.close();
  });

  test("a word left to the candidates is read in every block that holds one, past blocks that hold none", async () => {
    // Two turns alike but for one word, far apart: ranking them needs that word's postings in a
    // later block, after blocks where it has postings but no candidate.
    const gllam = await openTempGllam(makeTempDir());
    const alike = (sessionId: string, word: string) => ({ sessionId, seq: 0, speaker: "Bo", content: `zeppelin over the ${word} today` });
    const ids = gllam.addEpisodes([...corpus(3), alike("za", "water"), ...corpus(95, 3), alike("zb", "lake"), ...corpus(10, 98)]).ids;
    maintain(gllam);
    const db = gllam.dbRO();
    // Blocks of 64, 32 and 8 turns: the first holds one, the third the other.
    const spans = blocks(db);
    const blockOf = (id: number) => spans.findIndex((span) => span.block <= id && id <= span.last_id);
    expect([blockOf(ids[3]!), blockOf(ids[99]!), spans.length]).toEqual([0, 2, 3]);
    expect(lexicon(db, ["zeppelin", "lake"], 1)).toEqual([ids[99]!]);
    for (const limit of [1, 2, 5]) expect(lexicon(db, ["zeppelin", "lake"], limit)).toEqual(rankEveryPosting(db, ["zeppelin", "lake"], limit));
    gllam.close();
  });

  test("the turns past the blocks, kept between queries, follow appends and forgets", async () => {
    const gllam = await openTempGllam(makeTempDir());
    gllam.addEpisodes(tiedCorpus());
    maintain(gllam);
    const db = gllam.dbRO();
    const check = () => {
      // Asked twice: the first ask finds them through FTS5, the second keeps their inversion.
      for (let ask = 0; ask < 2; ask++) for (const words of QUERIES) expect(lexicon(db, words, 10)).toEqual(rankEveryPosting(db, words, 10));
    };
    check();
    const late = gllam.addEpisodes([{ sessionId: "late", seq: 0, content: "zeppelin quokka lake" }, { sessionId: "late", seq: 1, content: "then the kids" }]).ids;
    check();
    expect(lexicon(db, ["quokka"], 10)).toContain(late[0]!);
    gllam.forget({ episode: late[0]! });
    check();
    expect(lexicon(db, ["quokka"], 10)).not.toContain(late[0]!);
    // A turn written between two kept ones of its session: the later one's context changes.
    gllam.addEpisodes([{ sessionId: "gap", seq: 0, content: "the kids" }, { sessionId: "gap", seq: 2, content: "lake" }]);
    check();
    gllam.addEpisodes([{ sessionId: "gap", seq: 1, content: "quokka garden" }]);
    check();
    // A turn in a block whose next turn waits past the blocks: that turn's context changes.
    const last = blocks(gllam.store.db()).at(-1)!.last_id;
    gllam.forget({ episode: last });
    check();
    gllam.close();
  });

  test("asked once per write, as an agent asks: the turns past the blocks are kept from the second ask on, through appends, a turn written between kept ones and a forget", async () => {
    const gllam = await openTempGllam(makeTempDir());
    gllam.addEpisodes(tiedCorpus());
    maintain(gllam);
    const db = gllam.dbRO();
    const check = (words: string[]) => expect(lexicon(db, words, 10)).toEqual(rankEveryPosting(db, words, 10));
    const add = (seq: number, content: string) => gllam.addEpisodes([{ sessionId: "loop", seq, content }]).ids[0]!;
    let second = 0;
    const writes = [
      () => add(0, "quokka by the lake then"),
      () => (second = add(1, "then the zeppelin turn")),
      () => add(3, "kids in the garden"),
      () => add(2, "hiking museum pottery lake"),
      () => gllam.forget({ episode: second }),
      () => add(4, "sunrise tomatoes and then"),
      () => add(5, "zeppelin quokka lake kids"),
    ];
    check(QUERIES[0]!);
    for (const [i, write] of writes.entries()) {
      write();
      // The first ask after the write: the path under test (kept, made whole, or FTS5's).
      check(QUERIES[(i + 1) % QUERIES.length]!);
      // Every other write, every query: what is kept now.
      if (i % 2) for (const words of QUERIES) check(words);
    }
    gllam.close();
  });

  test("a file whose postings have the first layout (WITHOUT ROWID) is copied into the current one when opened for writing", async () => {
    const path = join(makeTempDir(), "layout.db");
    const writer = await Gllam.open(path, { embedder: localEmbedder });
    writer.addEpisodes(tiedCorpus());
    maintain(writer);
    const before = QUERIES.map((words) => lexicon(writer.dbRO(), words));
    writer.close();
    const raw = new Database(path);
    raw.run("ALTER TABLE episode_lexicon_postings RENAME TO current");
    raw.run("CREATE TABLE episode_lexicon_postings (scope TEXT NOT NULL, block INTEGER NOT NULL, term TEXT NOT NULL, documents INTEGER NOT NULL, postings BLOB NOT NULL, PRIMARY KEY (scope, block, term)) STRICT, WITHOUT ROWID");
    raw.run("INSERT INTO episode_lexicon_postings SELECT scope, block, term, documents, postings FROM current");
    raw.run("DROP TABLE current");
    const rows = raw.query("SELECT count(*) AS n FROM episode_lexicon_postings").get();
    raw.close();
    const reopened = await Gllam.open(path, { embedder: localEmbedder });
    const tables = reopened.store.db().query<{ name: string; sql: string | null }, []>("SELECT name, sql FROM sqlite_schema WHERE tbl_name LIKE 'episode_lexicon_postings%' ORDER BY name").all();
    expect(tables.map((table) => table.name)).toEqual(["episode_lexicon_postings", "sqlite_autoindex_episode_lexicon_postings_1"]);
    expect(tables[0]!.sql).not.toContain("WITHOUT ROWID");
    expect(reopened.store.db().query("SELECT count(*) AS n FROM episode_lexicon_postings").get()).toEqual(rows);
    expect(QUERIES.map((words) => lexicon(reopened.dbRO(), words))).toEqual(before);
    reopened.close();
  });

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
