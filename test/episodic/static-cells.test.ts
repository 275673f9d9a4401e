import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadStaticEmbedder } from "../../src/embed/static/bundled-table.ts";
import { createEmbedderFromSpec } from "../../src/embed/spec.ts";
import { replaceVectorTier } from "../../src/engine/schema.ts";
import { buildScopeCells, CELLS, cellOf, knnStaticCells, nearestCells, scopeHasCells, sphericalKMeans, trainCells } from "../../src/episodic/static-cells.ts";
import { exactStaticEpisodes, knnStaticEpisodes } from "../../src/episodic/static-vectors.ts";
import { seededRandom } from "../../src/bench/random.ts";
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

describe("static cells (pure)", () => {
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
    expect(knnStaticCells(db, staticEmbedder.embedSync(["rain"])[0]!, 10, "default")).toBeUndefined();
    gllam.store.transaction(() => buildScopeCells(db, "default", staticEmbedder.dims));
    expect(scopeHasCells(db, "default")).toBe(true);
    const count = (table: string) => (db.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    expect(count("episode_static_cells")).toBe(600);

    const q = staticEmbedder.embedSync(["a loan from the bank"])[0]!;
    const exact = exactStaticEpisodes(db, q, 10, "default").map((h) => h.episodeId);
    expect(knnStaticCells(db, q, 10, "default", CELLS)!.map((h) => h.episodeId)).toEqual(exact);
    const probed = knnStaticEpisodes(db, q, 10, "default").map((h) => h.episodeId);
    expect(probed.filter((id) => exact.includes(id)).length).toBeGreaterThanOrEqual(8);

    // Ingest after the cells exist puts new vectors there too; forget takes them out.
    const { ids } = gllam.addEpisodes(turns(40, 600));
    expect(count("episode_static_cells")).toBe(640);
    gllam.forget({ episode: ids[0]! });
    expect(count("episode_static_cells")).toBe(639);
    expect(knnStaticCells(db, q, 700, "default", CELLS)!.map((h) => h.episodeId).sort()).toEqual(exactStaticEpisodes(db, q, 700, "default").map((h) => h.episodeId).sort());

    // Another scope in the same file has no cells: brute force there.
    gllam.addEpisodes(turns(5).map((t) => ({ ...t, scope: "other" })));
    expect(scopeHasCells(db, "other")).toBe(false);
    expect(knnStaticEpisodes(db, q, 3, "other")).toHaveLength(3);

    // Rebuilding the static tier drops the cells (cut for the old vectors).
    gllam.store.transaction(() => replaceVectorTier(db, "static", staticEmbedder.modelVersion, staticEmbedder.dims));
    expect(scopeHasCells(db, "default")).toBe(false);
    gllam.close();
  });
});
