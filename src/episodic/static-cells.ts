/**
 * An inverted-file index over the static tier's episode vectors, so KNN in a large scope reads a
 * few percent of its vectors instead of all of them (sqlite-vec 0.1.9 searches by brute force:
 * ~0.35 µs per int8[256] vector, 350 ms per query at a million). The vector space is cut into
 * CELLS cells by a two-level spherical k-means (COARSE groups of FINE cells each, so assigning a
 * vector costs COARSE + FINE dot products), trained once per file on a sample of the first scope
 * to reach SCOPE_THRESHOLD episodes. From then on that scope's vectors are copied, with their cell,
 * into episode_static_cells (a vec0 table partitioned by scope and cell), and a query searches the
 * PROBES cells nearest to it, exactly within each. Smaller scopes keep brute-force KNN.
 *
 * A derived index: deleteVectors (forget) deletes from it too, replaceVectorTier (`gllam reembed`
 * of the static tier) drops it and the next ingest of a large scope rebuilds it, and import only
 * fills empty scopes, which have none.
 */
import type { Database } from "bun:sqlite";
import { toInt8Vector } from "../embed/static/static-embedder.ts";
import { hasTable, VECTOR_TIERS } from "../engine/schema.ts";
import type { EpisodeHit } from "./vectors.ts";

// Fewer, larger cells than the usual sqrt(n): each probed cell is a vec0 query of its own (~0.7 ms
// of partition lookup at 1M before any vector is read), so 256 cells and 16 probes beat 1,024 and 64.
const COARSE = 16;
const FINE = 16;
export const CELLS = COARSE * FINE;
/** A scope gets cells from this many episodes on (below it, brute force costs under ~20 ms). */
export const SCOPE_THRESHOLD = 50_000;
/** Cells searched per query: ~9% of the vectors when cells are even (at 1M: 16 found 85% of the exact top 10 in 46 ms, 24 92% in 72 ms, 32 95% in 89 ms). */
export const PROBES = 24;
const TRAIN_SAMPLE = 16_384;
const ITERATIONS = 8;
const CELLS_TABLE = VECTOR_TIERS.static.episodeCells;

/** live[c] = 0: cell c has no centroid (its group had fewer sample points than cells) and holds nothing. */
type Centroids = { dims: number; coarse: Float32Array; fine: Float32Array; live: Uint8Array };

function withLive(dims: number, coarse: Float32Array, fine: Float32Array): Centroids {
  const live = Uint8Array.from({ length: fine.length / dims }, (_, c) => (fine.subarray(c * dims, (c + 1) * dims).some((x) => x !== 0) ? 1 : 0));
  return { dims, coarse, fine, live };
}

/** int8 (or float) to a unit float vector. */
function unit(vector: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(vector);
  let norm = 0;
  for (let i = 0; i < out.length; i++) norm += out[i]! * out[i]!;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < out.length; i++) out[i]! /= norm;
  return out;
}

function dot(a: Float32Array, b: Float32Array, at: number, dims: number): number {
  let sum = 0;
  for (let i = 0; i < dims; i++) sum += a[i]! * b[at + i]!;
  return sum;
}

/** The index of the centroid (among count, from `first`, those live) with the largest dot product. */
function nearest(v: Float32Array, centroids: Float32Array, first: number, count: number, dims: number, live?: Uint8Array): number {
  let best = 0;
  let bestScore = -Infinity;
  for (let c = 0; c < count; c++) {
    if (live && !live[first + c]) continue;
    const score = dot(v, centroids, (first + c) * dims, dims);
    if (score > bestScore) [best, bestScore] = [c, score];
  }
  return best;
}

/** Spherical k-means (k unit centroids), seeded by evenly spaced points: deterministic. */
export function sphericalKMeans(points: Float32Array[], k: number, dims: number, iterations = ITERATIONS): Float32Array {
  const centroids = new Float32Array(k * dims);
  if (points.length === 0) return centroids;
  for (let c = 0; c < k; c++) centroids.set(points[Math.floor((c * points.length) / k)]!, c * dims);
  const owner = new Int32Array(points.length);
  for (let round = 0; round < iterations; round++) {
    points.forEach((p, i) => (owner[i] = nearest(p, centroids, 0, k, dims)));
    const sums = new Float32Array(k * dims);
    const counts = new Int32Array(k);
    points.forEach((p, i) => {
      counts[owner[i]!]!++;
      for (let d = 0; d < dims; d++) sums[owner[i]! * dims + d]! += p[d]!;
    });
    for (let c = 0; c < k; c++) {
      // An empty cell keeps its centroid: it may win points next round.
      if (counts[c] === 0) continue;
      centroids.set(unit(sums.subarray(c * dims, (c + 1) * dims)), c * dims);
    }
  }
  return centroids;
}

/** Coarse groups over the sample, then FINE cells within each group's points. */
export function trainCells(sample: Float32Array[], dims: number): Centroids {
  const coarse = sphericalKMeans(sample, COARSE, dims);
  const groups: Float32Array[][] = Array.from({ length: COARSE }, () => []);
  for (const p of sample) groups[nearest(p, coarse, 0, COARSE, dims)]!.push(p);
  const fine = new Float32Array(CELLS * dims);
  groups.forEach((points, g) => {
    // A group with fewer points than cells gets one cell per point; the rest stay dead (all zeros).
    // A group with none keeps its coarse centroid as its one cell, so nothing assigned there is lost.
    const cells = points.length > 0 ? sphericalKMeans(points, Math.min(FINE, points.length), dims) : coarse.slice(g * dims, (g + 1) * dims);
    fine.set(cells, g * FINE * dims);
  });
  return withLive(dims, coarse, fine);
}

/** A unit vector's cell: its coarse group, then the nearest fine cell of that group. */
export function cellOf(centroids: Centroids, v: Float32Array): number {
  const group = nearest(v, centroids.coarse, 0, COARSE, centroids.dims);
  return group * FINE + nearest(v, centroids.fine, group * FINE, FINE, centroids.dims, centroids.live);
}

/** The `probes` cells whose centroids are nearest a unit query vector, nearest first. */
export function nearestCells(centroids: Centroids, q: Float32Array, probes: number): number[] {
  const scores = Array.from({ length: CELLS }, (_, c) => [c, dot(q, centroids.fine, c * centroids.dims, centroids.dims)] as const).filter(([c]) => centroids.live[c]);
  return scores
    .sort((a, b) => b[1] - a[1])
    .slice(0, probes)
    .map(([c]) => c);
}

function readCentroids(db: Database): Centroids | undefined {
  const rows = db.query<{ level: number; centroids: Uint8Array; dims: number }, []>("SELECT level, centroids, dims FROM static_cell_centroids ORDER BY level").all();
  if (rows.length !== 2) return undefined;
  const floats = (bytes: Uint8Array) => new Float32Array(Uint8Array.from(bytes).buffer);
  return withLive(rows[0]!.dims, floats(rows[0]!.centroids), floats(rows[1]!.centroids));
}

/** Whether this scope's vectors are in the cells (then every later one must go there too). */
export function scopeHasCells(db: Database, scope: string): boolean {
  return hasTable(db, CELLS_TABLE) && db.query("SELECT 1 FROM static_cell_scopes WHERE scope = ?").get(scope) !== null;
}

/**
 * Keeps the cells of the scopes written to; the caller holds the write transaction and has just
 * stored these episodes' static vectors. A scope that reaches SCOPE_THRESHOLD gets its cells now
 * (the file's centroids are trained first if it has none): a one-time pause of a few seconds.
 */
export function maintainStaticCells(db: Database, dims: number, items: { key: string | number; scope: string }[], vectors: Float32Array[]): void {
  const byScope = new Map<string, number[]>();
  items.forEach((item, i) => byScope.set(item.scope, [...(byScope.get(item.scope) ?? []), i]));
  for (const [scope, indexes] of byScope) {
    if (scopeHasCells(db, scope)) {
      const centroids = readCentroids(db)!;
      const insert = db.query(`INSERT INTO ${CELLS_TABLE} (episode_id, scope, cell, embedding) VALUES (?, ?, ?, vec_int8(?))`);
      for (const i of indexes) insert.run(items[i]!.key, scope, cellOf(centroids, vectors[i]!), toInt8Vector(vectors[i]!));
    } else if (db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM episodes WHERE scope = ?").get(scope)!.n >= SCOPE_THRESHOLD) {
      buildScopeCells(db, scope, dims);
    }
  }
}

/** Copies every static vector of the scope into its cell (training the file's centroids if needed). */
export function buildScopeCells(db: Database, scope: string, dims: number): void {
  db.run(`CREATE VIRTUAL TABLE IF NOT EXISTS ${CELLS_TABLE} USING vec0(episode_id INTEGER PRIMARY KEY, scope TEXT PARTITION KEY, cell INTEGER PARTITION KEY, embedding int8[${dims}] distance_metric=cosine, chunk_size=512)`);
  const rows = db.query<{ id: number; embedding: Uint8Array }, [string]>("SELECT episode_id AS id, embedding FROM episode_static_vectors WHERE scope = ?").all(scope);
  const vectors = rows.map((row) => unit(new Int8Array(row.embedding.buffer, row.embedding.byteOffset, dims)));
  let centroids = readCentroids(db);
  if (!centroids) {
    const step = Math.max(1, vectors.length / TRAIN_SAMPLE);
    centroids = trainCells(Array.from({ length: Math.min(TRAIN_SAMPLE, vectors.length) }, (_, i) => vectors[Math.floor(i * step)]!), dims);
    const bytes = (floats: Float32Array) => new Uint8Array(floats.buffer, floats.byteOffset, floats.byteLength);
    const insert = db.query("INSERT INTO static_cell_centroids (level, dims, centroids) VALUES (?, ?, ?)");
    insert.run(0, dims, bytes(centroids.coarse));
    insert.run(1, dims, bytes(centroids.fine));
  }
  const insert = db.query(`INSERT INTO ${CELLS_TABLE} (episode_id, scope, cell, embedding) VALUES (?, ?, ?, vec_int8(?))`);
  rows.forEach((row, i) => insert.run(row.id, scope, cellOf(centroids, vectors[i]!), row.embedding));
  db.query("INSERT INTO static_cell_scopes (scope) VALUES (?)").run(scope);
}

/** KNN over the cells nearest the query; undefined when the scope has no cells (brute force then). */
export function knnStaticCells(db: Database, vector: Float32Array, k: number, scope: string, probes = PROBES): EpisodeHit[] | undefined {
  if (!scopeHasCells(db, scope)) return undefined;
  const centroids = readCentroids(db);
  if (!centroids) return undefined;
  const query = db.query<EpisodeHit, [Int8Array, number, string, number]>(
    `SELECT episode_id AS episodeId, distance FROM ${CELLS_TABLE} WHERE embedding MATCH vec_int8(?) AND k = ? AND scope = ? AND cell = ?`,
  );
  const q = toInt8Vector(vector);
  const hits = nearestCells(centroids, unit(vector), probes).flatMap((cell) => query.all(q, k, scope, cell));
  return hits.sort((a, b) => a.distance - b.distance).slice(0, k);
}
