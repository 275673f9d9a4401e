import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadStaticEmbedder } from "../../src/embed/static/bundled-table.ts";
import { createEmbedderFromSpec } from "../../src/embed/spec.ts";
import { replaceVectorTier } from "../../src/engine/schema.ts";
import { buildScopeCells, CELLS, cellOf, knnCells, nearestCells, sampleEvenly, SCOPE_THRESHOLD, scopeHasCells, sphericalKMeans, tierCentroids, TRAIN_SAMPLE, trainCells } from "../../src/episodic/episode-cells.ts";
import { ensureStaticVectorTable } from "../../src/engine/schema.ts";
import { countStaticEpisodeVectors, exactStaticEpisodes, fillStaticVectors, knnStaticEpisodes, scopeStaticTable } from "../../src/episodic/static-vectors.ts";
import { vectorRecords } from "../../src/maintenance/vector-dump.ts";
import { exactEpisodes, knnEpisodes } from "../../src/episodic/vectors.ts";
import { seededRandom } from "../../src/bench/random.ts";
import { Gllam } from "../../src/gllam/gllam.ts";
import { makeTempDir, openTempGllam } from "../helpers.ts";

const dir = makeTempDir();
const hash = await createEmbedderFromSpec({ kind: "module", path: join(import.meta.dir, "../fixtures/hash-embedder.ts") });
const staticEmbedder = loadStaticEmbedder();
const TOPICS = ["weather rain umbrella", "money bank loan", "ferry tangier noon", "guitar concert band", "garden tomatoes soil", "hiking lake trail"];
const turns = (n: number, from = 0) =>
  Array.from({ length: n }, (_, j) => ({ sessionId: `s${(from + j) % 7}`, seq: from + j, speaker: "Ann", content: `turn ${from + j}: ${TOPICS[(from + j) % TOPICS.length]} ${from + j}` }));

function unitRandom(random: () => number, dims: number): Float32Array {
  const v = Float32Array.from({ length: dims }, () => random() - 0.5);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

describe("episode cells (pure)", () => {
  test("a vector's cell is its coarse group's, then that group's nearest live cell, as plain dot products find them (any dimension)", () => {
    const random = seededRandom(11).next;
    for (const dims of [10, 16, 31]) {
      const sample = Array.from({ length: 600 }, () => unitRandom(random, dims));
      const centroids = trainCells(sample, dims);
      const plainDot = (v: Float32Array, all: Float32Array, c: number) => v.reduce((sum, x, i) => sum + x * all[c * dims + i]!, 0);
      const argmax = (v: Float32Array, all: Float32Array, from: number, count: number, live?: Uint8Array) =>
        Array.from({ length: count }, (_, i) => from + i).filter((c) => !live || live[c]).reduce((best, c) => (plainDot(v, all, c) > plainDot(v, all, best) ? c : best), live ? Array.from({ length: count }, (_, i) => from + i).find((c) => live[c])! : from);
      for (const v of sample.slice(0, 100)) {
        const group = argmax(v, centroids.coarse, 0, CELLS / 16);
        expect(cellOf(centroids, v)).toBe(argmax(v, centroids.fine, group * 16, 16, centroids.live));
      }
    }
  });

  test("k-means on separated clusters puts each cluster in one cell, and a point's nearest centroid is its cell", () => {
    const random = seededRandom(3).next;
    const centres = Array.from({ length: 4 }, () => unitRandom(random, 16));
    const points = centres.flatMap((c) => Array.from({ length: 20 }, () => {
      const p = c.map((x) => x + (random() - 0.5) * 0.05);
      const norm = Math.hypot(...p);
      return p.map((x) => x / norm);
    }));
    const centroids = sphericalKMeans(points, 4, 16);
    const owners = (cluster: number) => new Set(points.slice(cluster * 20, cluster * 20 + 20).map((p) => [0, 1, 2, 3].reduce((best, c) => (dotAt(p, centroids, c) > dotAt(p, centroids, best) ? c : best), 0)));
    for (let c = 0; c < 4; c++) expect(owners(c).size).toBe(1);
  });

  test.each([
    [10, 4, [0, 2, 5, 7]],
    [7, 3, [0, 2, 4]],
    [5, 8, [0, 1, 2, 3, 4]],
    [6, 6, [0, 1, 2, 3, 4, 5]],
    [1, 3, [0]],
    [0, 3, []],
    [4, 0, []],
  ])("%i items sampled to %i: items floor(i * count / size), as they stream past", (count, size, picked) => {
    let read = 0;
    const items = (function* () {
      for (let i = 0; i < count; i++) {
        read = i + 1;
        yield i;
      }
    })();
    expect(sampleEvenly(items, count, size, (i) => `#${i}`)).toEqual(picked.map((i) => `#${i}`));
    // Nothing is read past the last item sampled.
    expect(read).toBe(picked.length === size ? (picked.at(-1) ?? -1) + 1 : count);
  });

  test("a trained index assigns every point a cell among the cells nearest to it", () => {
    const random = seededRandom(5).next;
    const points = Array.from({ length: 3000 }, () => unitRandom(random, 8));
    const index = trainCells(points, 8);
    for (const p of points.slice(0, 50)) {
      const cell = cellOf(index, p);
      expect(cell).toBeGreaterThanOrEqual(0);
      expect(cell).toBeLessThan(CELLS);
      expect(nearestCells(index, p, CELLS)).toContain(cell);
    }
  });
});

function dotAt(p: Float32Array, centroids: Float32Array, c: number): number {
  let sum = 0;
  for (let i = 0; i < p.length; i++) sum += p[i]! * centroids[c * p.length + i]!;
  return sum;
}

describe("static cells in a file", () => {
  test("a scope's cells: KNN over all cells equals brute force; later ingest, forget and a static rebuild keep them right", async () => {
    const gllam = await openTempGllam(dir, { embedder: hash });
    gllam.addEpisodes(turns(600));
    const db = gllam.db();
    expect(knnCells(db, "static", staticEmbedder.embedSync(["rain"])[0]!, 10, "default")).toBeUndefined();
    gllam.store.transaction(() => buildScopeCells(db, "static", "default", staticEmbedder.dims));
    expect(scopeHasCells(db, "static", "default")).toBe(true);
    const count = (table: string) => (db.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    expect(count("episode_static_cells")).toBe(600);

    const q = staticEmbedder.embedSync(["a loan from the bank"])[0]!;
    const exact = exactStaticEpisodes(db, q, 10, "default").map((h) => h.episodeId);
    expect(knnCells(db, "static", q, 10, "default", CELLS)!.map((h) => h.episodeId)).toEqual(exact);
    const probed = knnStaticEpisodes(db, q, 10, "default").map((h) => h.episodeId);
    expect(probed.filter((id) => exact.includes(id)).length).toBeGreaterThanOrEqual(8);

    // Ingest after the cells exist puts new vectors there too; forget takes them out.
    const { ids } = gllam.addEpisodes(turns(40, 600));
    expect(count("episode_static_cells")).toBe(640);
    gllam.forget({ episode: ids[0]! });
    expect(count("episode_static_cells")).toBe(639);
    expect(knnCells(db, "static", q, 700, "default", CELLS)!.map((h) => h.episodeId).sort()).toEqual(exactStaticEpisodes(db, q, 700, "default").map((h) => h.episodeId).sort());

    // Another scope in the same file has no cells: brute force there.
    gllam.addEpisodes(turns(5).map((t) => ({ ...t, scope: "other" })));
    expect(scopeHasCells(db, "static", "other")).toBe(false);
    expect(knnStaticEpisodes(db, q, 3, "other")).toHaveLength(3);

    // Rebuilding the static tier drops the cells (cut for the old vectors).
    gllam.store.transaction(() => replaceVectorTier(db, "static", staticEmbedder.modelVersion, staticEmbedder.dims));
    expect(scopeHasCells(db, "static", "default")).toBe(false);
    gllam.close();
  });

  test("a scope with cells stores later static vectors in its cells only; exact KNN, export, counts and filling see every vector as with both copies", async () => {
    // Both files hold the same 640 turns; in `cells` the last 40 came after the scope got its cells.
    const plain = await openTempGllam(makeTempDir(), { embedder: hash });
    plain.addEpisodes(turns(640));
    const cells = await openTempGllam(makeTempDir(), { embedder: hash });
    cells.addEpisodes(turns(600));
    const db = cells.db();
    cells.store.transaction(() => buildScopeCells(db, "static", "default", staticEmbedder.dims));
    cells.addEpisodes(turns(40, 600));
    const count = (gllam: typeof cells, table: string) => (gllam.db().query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    expect([count(cells, "episode_static_vectors"), count(cells, "episode_static_cells")]).toEqual([600, 640]);
    expect(scopeStaticTable(db, "default")).toBe("episode_static_cells");

    for (const text of ["a loan from the bank", "turn 620: rain", "guitar concert 633"]) {
      const q = staticEmbedder.embedSync([text])[0]!;
      expect(exactStaticEpisodes(db, q, 50, "default")).toEqual(exactStaticEpisodes(plain.db(), q, 50, "default"));
    }
    const staticEpisodes = (gllam: typeof cells) => [...vectorRecords(gllam.db(), null)].filter((r) => r.tier === "static" && r.kind === "episode");
    expect(staticEpisodes(cells)).toEqual(staticEpisodes(plain));
    expect(staticEpisodes(cells)).toHaveLength(640);
    expect(countStaticEpisodeVectors(db)).toBe(640);
    expect(cells.doctor().findings.filter((f) => /no static vector/.test(f.problem))).toEqual([]);
    expect(fillStaticVectors(cells.store, staticEmbedder)).toBe(0);

    // Forget takes a cells-only vector out; filling gives a scope's missing vector back, in its cells.
    const { ids } = cells.addEpisodes(turns(1, 640));
    cells.forget({ episode: ids[0]! });
    expect(countStaticEpisodeVectors(db)).toBe(640);
    db.run("DELETE FROM episode_static_cells WHERE episode_id = (SELECT max(episode_id) FROM episode_static_cells)");
    expect(cells.doctor().findings.some((f) => /1 episodes and 0 nodes have no static vector/.test(f.problem))).toBe(true);
    expect(fillStaticVectors(cells.store, staticEmbedder)).toBe(1);
    expect([count(cells, "episode_static_vectors"), count(cells, "episode_static_cells")]).toEqual([600, 640]);
    plain.close();
    cells.close();
  });

  test("a scope larger than the training sample: centroids from its evenly spaced vectors, every vector in its cell (read row by row)", async () => {
    const gllam = await openTempGllam(makeTempDir(), { embedder: hash });
    const db = gllam.db();
    const random = seededRandom(17).next;
    const n = TRAIN_SAMPLE + 3_000;
    gllam.store.transaction(() => {
      ensureStaticVectorTable(db, "random-int8", 256);
      const insert = db.query("INSERT INTO episode_static_vectors (episode_id, scope, embedding) VALUES (?, 'default', vec_int8(?))");
      for (let id = 1; id <= n; id++) insert.run(id, Int8Array.from({ length: 256 }, () => Math.floor(random() * 255) - 127));
    });
    const rows = db.query<{ id: number; embedding: Uint8Array }, []>("SELECT episode_id AS id, embedding FROM episode_static_vectors WHERE scope = 'default'").all();
    const unitOf = (bytes: Uint8Array) => {
      const v = Float32Array.from(new Int8Array(bytes.buffer, bytes.byteOffset, 256));
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    };
    gllam.store.transaction(() => buildScopeCells(db, "static", "default", 256));
    const expected = trainCells(Array.from({ length: TRAIN_SAMPLE }, (_, i) => unitOf(rows[Math.floor((i * n) / TRAIN_SAMPLE)]!.embedding)), 256);
    const stored = tierCentroids(db, "static")!;
    expect([stored.coarse, stored.fine]).toEqual([expected.coarse, expected.fine]);
    const cells = new Map(db.query<{ id: number; cell: number }, []>("SELECT episode_id AS id, cell FROM episode_static_cells").all().map((row) => [row.id, row.cell]));
    expect(cells.size).toBe(n);
    for (const row of rows.filter((_, i) => i % 997 === 0)) expect(cells.get(row.id)).toBe(cellOf(expected, unitOf(row.embedding)));
    gllam.close();
  });

  test("a reembed's swap and an import carrying vectors give the large scopes their cells, both tiers: KNN by cells right after, before any write", async () => {
    const gllam = await openTempGllam(makeTempDir(), { embedder: hash });
    const db = gllam.db();
    for (let from = 0; from < SCOPE_THRESHOLD; from += 10_000) gllam.addEpisodes(turns(10_000, from));
    gllam.addEpisodes(turns(5).map((t) => ({ ...t, scope: "small" })));
    await gllam.waitForEmbeddings();
    const cellsOf = () => (["static", "model"] as const).map((tier) => [scopeHasCells(db, tier, "default"), scopeHasCells(db, tier, "small")]);
    expect(cellsOf()).toEqual([[true, false], [true, false]]);

    const report = await gllam.reembedAll({ force: true });
    expect(report).toMatchObject({ staticReset: true, reset: true, staticEpisodes: SCOPE_THRESHOLD + 5, episodes: SCOPE_THRESHOLD + 5 });
    expect(cellsOf()).toEqual([[true, false], [true, false]]);
    const count = (table: string) => (db.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    expect([count("episode_static_cells"), count("episode_model_cells")]).toEqual([SCOPE_THRESHOLD, SCOPE_THRESHOLD]);
    const q = staticEmbedder.embedSync(["a loan from the bank"])[0]!;
    expect(knnCells(db, "static", q, 10, "default", CELLS)!.map((h) => h.episodeId)).toEqual(exactStaticEpisodes(db, q, 10, "default").map((h) => h.episodeId));
    const m = (await hash.embed(["a loan from the bank"]))[0]!;
    expect(knnCells(db, "model", m, 10, "default", CELLS)!.map((h) => h.episodeId)).toEqual(exactEpisodes(db, m, 10, "default").map((h) => h.episodeId));

    // The same memory exported with its vectors and imported into a new file: they go in as rows.
    const dump = join(makeTempDir(), "dump.jsonl");
    const out = Bun.file(dump).writer();
    gllam.exportMemory((text) => out.write(text), { withVectors: true });
    await out.end();
    const copy = await openTempGllam(makeTempDir(), { embedder: hash });
    const imported = await copy.importMemory(dump, { withVectors: true });
    expect(imported.carriedVectors).toBe(2 * (SCOPE_THRESHOLD + 5));
    const copyDb = copy.db();
    expect((["static", "model"] as const).map((tier) => [scopeHasCells(copyDb, tier, "default"), scopeHasCells(copyDb, tier, "small")])).toEqual([[true, false], [true, false]]);
    expect(knnCells(copyDb, "static", q, 10, "default", CELLS)!.map((h) => h.episodeId)).toEqual(exactStaticEpisodes(copyDb, q, 10, "default").map((h) => h.episodeId));
    expect(knnCells(copyDb, "model", m, 10, "default", CELLS)!.map((h) => h.episodeId)).toEqual(exactEpisodes(copyDb, m, 10, "default").map((h) => h.episodeId));
    copy.close();
    gllam.close();
  });

  test("a cell's chunks are found through an index (built with the cells, added by initSchema to older files)", async () => {
    let gllam = await openTempGllam(makeTempDir(), { embedder: hash });
    const path = gllam.store.path;
    gllam.addEpisodes(turns(300));
    let db = gllam.db();
    gllam.store.transaction(() => buildScopeCells(db, "static", "default", staticEmbedder.dims));
    // The statement vec0 0.1.9 runs per probed cell (its text, from the extension's binary).
    const plan = () => db.query<{ detail: string }, []>("EXPLAIN QUERY PLAN select chunk_id, validity, rowids from episode_static_cells_chunks WHERE partition00 = 'default' AND partition01 = 3").all().map((row) => row.detail);
    expect(plan()).toEqual(["SEARCH episode_static_cells_chunks USING INDEX episode_static_cells_chunks_partition (partition00=? AND partition01=?)"]);
    const q = staticEmbedder.embedSync(["a loan from the bank"])[0]!;
    expect(knnCells(db, "static", q, 300, "default", CELLS)!.map((h) => h.episodeId).sort()).toEqual(exactStaticEpisodes(db, q, 300, "default").map((h) => h.episodeId).sort());
    // A file whose cells were built before the index: opening it adds the index.
    gllam.close();
    const raw = new Database(path);
    raw.run("DROP INDEX episode_static_cells_chunks_partition");
    raw.close();
    gllam = await Gllam.open(path, { embedder: hash, staticEmbedder });
    db = gllam.db();
    expect(plan()[0]).toContain("USING INDEX episode_static_cells_chunks_partition");
    gllam.close();
  });

  test("the centroids are decoded once while unchanged: the same across commits of episodes, again after any write of them (rolled back or another connection's)", async () => {
    const gllam = await openTempGllam(makeTempDir(), { embedder: hash });
    gllam.addEpisodes(turns(300));
    const db = gllam.db();
    expect(tierCentroids(db, "static")).toBeUndefined();
    gllam.store.transaction(() => buildScopeCells(db, "static", "default", staticEmbedder.dims));
    const trained = tierCentroids(db, "static")!;
    expect(trained.live.some(Boolean)).toBe(true);
    gllam.addEpisodes(turns(20, 300));
    expect(tierCentroids(db, "static")).toBe(trained);

    // Centroids zeroed in a transaction that rolls back: seen inside it, the trained ones after.
    const zero = "UPDATE static_cell_centroids SET centroids = zeroblob(length(centroids)) WHERE level = 1";
    expect(() =>
      gllam.store.transaction(() => {
        db.run(zero);
        expect(tierCentroids(db, "static")!.live.some(Boolean)).toBe(false);
        throw new Error("roll back");
      }),
    ).toThrow("roll back");
    expect(tierCentroids(db, "static")).toEqual(trained);
    // The same after a rolled back write, then another write, read only after both (a counter kept
    // as the token would be back at the value the rolled back centroids were cached under).
    expect(() =>
      gllam.store.transaction(() => {
        db.run(zero);
        tierCentroids(db, "static");
        throw new Error("roll back");
      }),
    ).toThrow("roll back");
    db.run("UPDATE static_cell_centroids SET centroids = zeroblob(length(centroids)) WHERE level = 0");
    const written = tierCentroids(db, "static");
    expect(written).toEqual({ ...trained, coarse: new Float32Array(trained.coarse.length) });

    // A reader's copy follows the writer's commits of centroids, and another process's.
    const reader = gllam.store.dbRO();
    expect(tierCentroids(reader, "static")).toEqual(written);
    db.run(zero);
    expect(tierCentroids(reader, "static")!.live.some(Boolean)).toBe(false);
    const other = new Database(gllam.store.path);
    other.run("DELETE FROM static_cell_centroids");
    other.close();
    expect(tierCentroids(reader, "static")).toBeUndefined();
    expect(tierCentroids(db, "static")).toBeUndefined();
    gllam.close();
  });

  test("a file without centroid tokens (no writer of this version opened it) is read as it changes", async () => {
    const gllam = await openTempGllam(makeTempDir(), { embedder: hash });
    gllam.addEpisodes(turns(300));
    gllam.store.transaction(() => buildScopeCells(gllam.db(), "static", "default", staticEmbedder.dims));
    const path = gllam.store.path;
    gllam.close();
    const raw = new Database(path);
    raw.run("DROP TABLE cell_centroid_tokens");
    for (const { name } of raw.query<{ name: string }, []>("SELECT name FROM sqlite_schema WHERE type = 'trigger' AND name LIKE '%cell_centroids_%'").all()) raw.run(`DROP TRIGGER ${name}`);
    const readOnly = await Gllam.open(path, { readOnly: true, embedder: hash, staticEmbedder });
    const reader = readOnly.store.dbRO();
    expect(tierCentroids(reader, "static")!.live.some(Boolean)).toBe(true);
    raw.run("UPDATE static_cell_centroids SET centroids = zeroblob(length(centroids)) WHERE level = 1");
    expect(tierCentroids(reader, "static")!.live.some(Boolean)).toBe(false);
    raw.close();
    readOnly.close();
  });

  test("cells holding many near neighbours: asking each cell for a few first gives exact KNN's answer", async () => {
    const gllam = await openTempGllam(makeTempDir(), { embedder: hash });
    // Clumps: 200 turns about the rain, 200 about the bank, so a cell holds far more than the first ask.
    gllam.addEpisodes([...turns(200), ...Array.from({ length: 400 }, (_, i) => ({ sessionId: "c", seq: i, content: `${i % 2 ? "rain on the roof again" : "a loan from the bank again"} ${i}` }))]);
    const db = gllam.db();
    gllam.store.transaction(() => buildScopeCells(db, "static", "default", staticEmbedder.dims));
    for (const text of ["rain on the roof", "a loan from the bank"]) {
      const q = staticEmbedder.embedSync([text])[0]!;
      const distances = (hits: { distance: number }[]) => hits.map((h) => h.distance);
      expect(distances(knnCells(db, "static", q, 150, "default", CELLS)!)).toEqual(distances(exactStaticEpisodes(db, q, 150, "default")));
    }
    gllam.close();
  });
});

describe("model cells in a file", () => {
  test("exact over all cells on clumped vectors; maintained at write; a forgotten episode never comes back; a model rebuild drops them", async () => {
    const gllam = await openTempGllam(makeTempDir(), { embedder: hash });
    gllam.addEpisodes([...turns(200), ...Array.from({ length: 400 }, (_, i) => ({ sessionId: "c", seq: i, content: `${i % 2 ? "rain on the roof again" : "a loan from the bank again"} ${i}` }))]);
    await gllam.waitForEmbeddings();
    const db = gllam.db();
    const [q] = await hash.embed(["rain on the roof"]);
    expect(knnCells(db, "model", q!, 10, "default")).toBeUndefined();
    gllam.store.transaction(() => buildScopeCells(db, "model", "default", hash.dims));
    expect(scopeHasCells(db, "model", "default")).toBe(true);
    expect(scopeHasCells(db, "static", "default")).toBe(false);
    const count = () => (db.query("SELECT count(*) AS n FROM episode_model_cells").get() as { n: number }).n;
    expect(count()).toBe(600);
    const distances = (hits: { distance: number }[]) => hits.map((h) => h.distance);
    expect(distances(knnCells(db, "model", q!, 150, "default", CELLS)!)).toEqual(distances(exactEpisodes(db, q!, 150, "default")));

    // New model vectors of the scope go into the cells; forget takes them out for good.
    const { ids } = gllam.addEpisodes(turns(40, 600));
    await gllam.waitForEmbeddings();
    expect(count()).toBe(640);
    const [forgotten] = await hash.embed([`Ann: turn 600: ${TOPICS[0]} 600`]);
    expect(knnEpisodes(db, forgotten!, 5, "default").map((h) => h.episodeId)).toContain(ids[0]!);
    gllam.forget({ episode: ids[0]! });
    expect(count()).toBe(639);
    const all = knnCells(db, "model", forgotten!, 700, "default", CELLS)!.map((h) => h.episodeId);
    expect(all).not.toContain(ids[0]!);
    expect(all.sort()).toEqual(exactEpisodes(db, forgotten!, 700, "default").map((h) => h.episodeId).sort());
    expect(knnEpisodes(db, forgotten!, 5, "default").map((h) => h.episodeId)).not.toContain(ids[0]!);

    // Re-embedding the model tier drops its cells (cut for the old vectors).
    gllam.store.transaction(() => replaceVectorTier(db, "model", hash.modelVersion, hash.dims));
    expect(scopeHasCells(db, "model", "default")).toBe(false);
    expect(knnEpisodes(db, q!, 5, "default")).toEqual([]);
    gllam.close();
  });
});
