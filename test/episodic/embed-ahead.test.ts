import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadStaticEmbedder } from "../../src/embed/static/bundled-table.ts";
import { createEmbedderFromSpec } from "../../src/embed/spec.ts";
import { startEmbedAhead } from "../../src/episodic/embed-ahead.ts";
import { insertEpisodes, parseEpisodes } from "../../src/episodic/episodes.ts";
import { buildScopeCells, tierCentroids } from "../../src/episodic/episode-cells.ts";
import { episodeEmbeddingText } from "../../src/episodic/vectors.ts";
import type { IngestUnit } from "../../src/episodic/formats/source.ts";
import { parseUnits, writeBatches, writeUnits } from "../../src/episodic/ingest.ts";
import type { Gllam } from "../../src/gllam/gllam.ts";
import { expectGllamError, makeTempDir, openTempGllam } from "../helpers.ts";
import { writeFileSync } from "node:fs";
import type { StaticEmbedder } from "../../src/embed/static/static-embedder.ts";
import { catchUpLexicon, type LexiconSizes } from "../../src/episodic/lexicon/build.ts";
import { forgetKnownTerms, knownTermsUsed } from "../../src/episodic/lexicon/term-numbers.ts";

const hash = await createEmbedderFromSpec({ kind: "module", path: join(import.meta.dir, "../fixtures/hash-embedder.ts") });
const staticEmbedder = loadStaticEmbedder();
const TOPICS = ["weather rain umbrella", "money bank loan", "ferry tangier noon", "guitar concert band", "garden tomatoes soil"];
// Speakers, control characters and outer spaces (cleaned by the schema: the worker must embed the cleaned text).
const unit = (key: string, n: number, from = 0): IngestUnit => ({
  key,
  sessions: [{ id: key, title: `session ${key}` }],
  episodes: Array.from({ length: n }, (_, j) => ({ sessionId: key, seq: from + j, speaker: j % 3 ? "Ann" : "", content: ` turn ${from + j}\u0007 of ${key}: ${TOPICS[(from + j) % TOPICS.length]} ` })),
});

/** Everything an ingest stores for episodes, ids included (created_at aside: the clock). */
const storedEpisodes = (gllam: Gllam) => gllam.db().query("SELECT id, scope, kind, session_id, seq, role, speaker, content, occurred_at, metadata, content_hash FROM episodes ORDER BY id").all();
function storedRows(gllam: Gllam) {
  const all = (sql: string) => gllam.db().query(sql).all();
  return {
    episodes: storedEpisodes(gllam),
    fts: all("SELECT rowid FROM episodes_fts WHERE episodes_fts MATCH 'weather OR loan OR ferry' ORDER BY rank, rowid"),
    vectors: all("SELECT episode_id, vec_to_json(embedding) AS v FROM episode_static_vectors ORDER BY episode_id"),
    cells: all("SELECT episode_id, cell, vec_to_json(embedding) AS v FROM episode_static_cells ORDER BY episode_id"),
  };
}

describe("static vectors embedded ahead in a worker", () => {
  test("an ingest with the worker's vectors stores the same rows, vectors and cells, and finds the same, as one embedding on the writer's thread", async () => {
    const chunks = [[unit("a", 120), unit("b", 80)], [unit("c", 150), unit("a", 120)], [unit("a", 60, 120), unit("d", 90)]];
    const write = async (ahead: boolean) => {
      const gllam = await openTempGllam(makeTempDir(), { embedder: hash, staticEmbedder });
      const embedAhead = ahead ? startEmbedAhead(staticEmbedder) : undefined;
      if (ahead) expect(embedAhead).toBeDefined();
      const counts = [];
      try {
        for (const [i, units] of chunks.entries()) {
          const batches = parseUnits(units);
          const staticAhead = await embedAhead?.embed(gllam.db(), batches);
          if (ahead) expect(staticAhead?.cells !== undefined).toBe(i > 0);
          counts.push(writeBatches(gllam.store, batches, { staticEmbedder, staticAhead }));
          // After the first chunk the scope gets its cells: later vectors go to the cells only.
          if (i === 0) gllam.store.transaction(() => buildScopeCells(gllam.db(), "static", "default", staticEmbedder.dims));
        }
      } finally {
        await embedAhead?.close();
      }
      return { gllam, counts };
    };
    const plain = await write(false);
    const ahead = await write(true);
    expect(ahead.counts).toEqual(plain.counts);
    expect(plain.counts[1]!.duplicates).toBe(120);
    const rows = storedRows(ahead.gllam);
    expect(rows).toEqual(storedRows(plain.gllam));
    expect(rows.vectors).toHaveLength(200);
    expect(rows.cells).toHaveLength(200 + 150 + 150);
    for (const query of ["a loan from the bank", "Ann and the rain", "concert"]) {
      const hits = async (gllam: Gllam) => (await gllam.searchEpisodes(query, { k: 10 })).hits.map((hit) => [hit.episodeId, hit.score, hit.staticRank]);
      const found = await hits(ahead.gllam);
      expect(found.length).toBeGreaterThan(0);
      expect(found).toEqual(await hits(plain.gllam));
    }
    // writeUnits (parse, then write) stores what the two steps store.
    const once = await openTempGllam(makeTempDir(), { embedder: hash, staticEmbedder });
    writeUnits(once.store, chunks[0]!, { staticEmbedder });
    expect(storedEpisodes(once)).toEqual(rows.episodes.slice(0, 200));
    for (const gllam of [plain.gllam, ahead.gllam, once]) gllam.close();
  });

  test("vectors that do not match the batch are refused, and nothing of the batch is written", async () => {
    const gllam = await openTempGllam(makeTempDir(), { embedder: hash, staticEmbedder });
    const batch = parseEpisodes(unit("a", 3).episodes);
    await expectGllamError(() => gllam.store.transaction(() => insertEpisodes(gllam.db(), batch, { staticEmbedder, staticAhead: { vectors: staticEmbedder.embedSync(["one", "two"]) } })), "E_INTERNAL");
    expect(gllam.stats().tables.episodes).toBe(0);
    gllam.close();
  });

  test("cells assigned with centroids that are no longer the tier's are assigned again on the writer's thread", async () => {
    const cellsOf = async (stale: boolean) => {
      const gllam = await openTempGllam(makeTempDir(), { embedder: hash, staticEmbedder });
      writeUnits(gllam.store, [unit("a", 200)], { staticEmbedder });
      gllam.store.transaction(() => buildScopeCells(gllam.db(), "static", "default", staticEmbedder.dims));
      const batches = parseUnits([unit("b", 50)]);
      const vectors = staticEmbedder.embedSync(batches[0]!.episodes.map(episodeEmbeddingText));
      const centroids = tierCentroids(gllam.db(), "static")!;
      // Other centroids (a rebuild since), and cells that no assignment would give.
      const other = { ...centroids, fine: centroids.fine.map((x) => -x) };
      const staticAhead = stale ? { vectors, cells: { centroids: other, cells: new Int32Array(50).fill(7) } } : undefined;
      writeBatches(gllam.store, batches, { staticEmbedder, staticAhead });
      const cells = gllam.db().query("SELECT episode_id, cell FROM episode_static_cells ORDER BY episode_id").all();
      gllam.close();
      return cells;
    };
    const stale = await cellsOf(true);
    expect(new Set(stale.map((row) => (row as { cell: number }).cell)).size).toBeGreaterThan(1);
    expect(stale).toEqual(await cellsOf(false));
  });

  test("gllam ingest of more than a chunk embeds ahead: the same rows, vectors and cells as without the worker, the job's count right", async () => {
    const dir = makeTempDir();
    const file = (name: string, n: number, from: number) => {
      const path = join(dir, name);
      writeFileSync(path, Array.from({ length: n }, (_, i) => JSON.stringify({ session_id: `s${(from + i) % 13}`, speaker: i % 2 ? "Ann" : "Bob", content: `turn ${from + i}: ${TOPICS[(from + i) % TOPICS.length]}` })).join("\n"));
      return path;
    };
    const first = file("first.jsonl", 300, 0);
    const second = file("second.jsonl", 5600, 300);
    // Without a spec the embedder cannot be rebuilt in a worker: everything on the writer's thread.
    const inline: StaticEmbedder = { ...staticEmbedder, spec: undefined };
    const ingest = async (embedder: StaticEmbedder) => {
      const gllam = await openTempGllam(makeTempDir(), { embedder: hash, staticEmbedder: embedder });
      await gllam.ingestFiles([first]);
      gllam.store.transaction(() => buildScopeCells(gllam.db(), "static", "default", staticEmbedder.dims));
      // After each chunk: the episodes written so far, and the ingest job's resumption point.
      const progress: [number, number][] = [];
      const jobDone = () => (JSON.parse((gllam.db().query("SELECT state FROM maintenance_jobs WHERE kind = 'ingest' ORDER BY id DESC").get() as { state: string }).state) as { done: number }).done;
      const report = await gllam.ingestFiles([second], {}, (done) => progress.push([done, jobDone()]));
      return { gllam, report, progress };
    };
    const plain = await ingest(inline);
    const ahead = await ingest(staticEmbedder);
    expect(ahead.report).toMatchObject({ inserted: 5600, duplicates: 0 });
    const rows = storedRows(ahead.gllam);
    expect(rows).toEqual(storedRows(plain.gllam));
    expect(rows.cells).toHaveLength(5900);
    expect(ahead.progress).toEqual([[5000, 5000], [5600, 5600]]);
    expect(plain.progress).toEqual(ahead.progress);
    for (const gllam of [plain.gllam, ahead.gllam]) gllam.close();
  }, 30_000);
});

describe("lexicon terms numbered ahead in the worker", () => {
  const SMALL: LexiconSizes = { from: 64, block: 32, fanout: 2 };
  const chunks = [[unit("a", 120), unit("b", 80)], [unit("c", 150), unit("a", 120, 120)], [unit("d", 90)]];
  /** Writes the chunks (embedded ahead by `embedAhead` when given), then makes every lexicon block owed. */
  const write = async (embedAhead?: ReturnType<typeof startEmbedAhead>) => {
    const gllam = await openTempGllam(makeTempDir(), { embedder: hash, staticEmbedder });
    try {
      for (const units of chunks) {
        const batches = parseUnits(units);
        writeBatches(gllam.store, batches, { staticEmbedder, staticAhead: await embedAhead?.embed(gllam.db(), batches) });
      }
    } finally {
      await embedAhead?.close();
    }
    const used = knownTermsUsed();
    expect(catchUpLexicon(gllam.store, "default", SMALL)).toBeGreaterThan(10);
    const all = (sql: string) => gllam.db().query(sql).all();
    const lexicon = {
      blocks: all("SELECT scope, block, last_id, level, documents, tokens FROM episode_lexicon_blocks ORDER BY block"),
      postings: all("SELECT scope, block, term, documents, hex(postings) AS postings FROM episode_lexicon_postings ORDER BY block, term"),
    };
    gllam.close();
    forgetKnownTerms();
    return { lexicon, used: knownTermsUsed() - used };
  };

  test("blocks made from the worker's numbers are the rows of blocks tokenised on the writer's thread", async () => {
    forgetKnownTerms();
    const plain = await write();
    expect(plain.used).toBe(0);
    const embedAhead = startEmbedAhead(staticEmbedder)!;
    const ahead = await write(embedAhead);
    expect(embedAhead.answered).toBe(chunks.length);
    // Every turn's terms came from the worker (and its context's, but a session's first turn's).
    expect(ahead.used).toBeGreaterThanOrEqual(560);
    expect(ahead.lexicon).toEqual(plain.lexicon);
    expect(plain.lexicon.postings.length).toBeGreaterThan(20);
  }, 30_000);

  test("a worker that fails leaves the tokenising to the writer's thread: the same rows", async () => {
    forgetKnownTerms();
    const plain = await write();
    const broken = startEmbedAhead({ ...staticEmbedder, spec: { kind: "module", path: join(makeTempDir(), "missing.ts") } })!;
    const failed = await write(broken);
    expect(broken.failed).toBe(chunks.length);
    expect(failed.used).toBe(0);
    expect(failed.lexicon).toEqual(plain.lexicon);
  }, 30_000);

  // A worker that had failed (or exited) before its first chunk once left that chunk waiting forever.
  test.each([
    ["whose table cannot load, once it has had time to fail,", "throw new Error('no table here');"],
    ["that exits before its first chunk", "process.exit(3);"],
  ])("a worker %s answers each chunk at once, left to the writer's thread", async (_, body) => {
    const path = join(makeTempDir(), "broken-embedder.ts");
    writeFileSync(path, `${body}\nexport default () => ({});\n`);
    const broken = startEmbedAhead({ ...staticEmbedder, spec: { kind: "module", path } })!;
    await Bun.sleep(500);
    const gllam = await openTempGllam(makeTempDir(), { embedder: hash, staticEmbedder });
    for (const units of chunks) expect(await broken.embed(gllam.db(), parseUnits(units))).toBeUndefined();
    expect(broken.failed).toBe(chunks.length);
    await broken.close();
    gllam.close();
  }, 10_000);
});
