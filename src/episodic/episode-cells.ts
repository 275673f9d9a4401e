/**
 * An inverted-file index over a tier's episode vectors (static int8[256] or model float[512]), so
 * KNN in a large scope reads a few percent of its vectors instead of all of them (sqlite-vec 0.1.9
 * searches by brute force: ~0.35 µs per int8[256] vector, 350 ms per query at a million; ~0.6 µs
 * per float[512], 60 ms at 100K). The vector space is cut into CELLS cells by a two-level
 * spherical k-means (COARSE groups of FINE cells each, so assigning a vector costs COARSE + FINE
 * dot products), trained once per file and tier on a sample of the first scope to reach
 * SCOPE_THRESHOLD vectors. From then on that scope's vectors are copied, with their cell, into the
 * tier's cells table (a vec0 table partitioned by scope and cell), and a query searches the PROBES[tier]
 * cells nearest to it, exactly within each: static cells by reading their chunks and scoring them
 * in WebAssembly (int8-scan.ts), model cells by a vec0 query each. Smaller scopes keep brute-force KNN.
 *
 * A derived index: deleteVectors (forget) deletes from it too, replaceVectorTier (`gllam reembed`
 * of a tier) drops that tier's cells and the swap that called it builds them again for the large
 * scopes (buildLargeScopeCells), and import only fills empty scopes, which have none until it
 * gives them theirs (computed vectors through maintainCells, carried ones at its end).
 */
import type { Database } from "bun:sqlite";
import { toInt8Vector } from "../embed/static/static-embedder.ts";
import { fileChanges } from "../engine/file-state.ts";
import { hasLastingTable, hasTable, indexVectorChunks, VECTOR_TIERS, type VectorTier } from "../engine/schema.ts";
import { scanInt8Partitions, scannable } from "./int8-scan.ts";
import { sameBytes } from "./same-bytes.ts";
import type { EpisodeHit } from "./vectors.ts";

// Fewer, larger cells than the usual sqrt(n): each probed cell is a vec0 query of its own (~0.7 ms
// of partition lookup at 1M before any vector is read), so 256 cells and 16 probes beat 1,024 and 64.
// With indexVectorChunks (most of that lookup gone), 1,024 cells find more of the exact top 10 per ms
// but less of the bench's evidence at 1M (README, "The query path, second pass"): 256 kept.
const COARSE = 16;
const FINE = 16;
export const CELLS = COARSE * FINE;
/** A scope gets cells from this many episodes on (below it, brute force costs under ~20 ms). */
export const SCOPE_THRESHOLD = 50_000;
/**
 * Cells searched per query, per tier. Static: 12 of 256 (~9% of the vectors at 1M: queries fall in
 * the larger cells). On the 1M bench file (100 dev questions; share of exact KNN's top 10 found /
 * p50 with vec0 queries at load ~2): 24 probes 95% / 74 ms, 16 89% / 51 ms, 12 85% / 38 ms, 8 77% /
 * 24 ms; scanned (int8-scan.ts, load ~3): 24 27 ms, 16 18 ms, 12 14 ms. Recall@10 on the evidence
 * is exact KNN's (.432) down to 12 probes (.422 at 8), and hybrid search's top 10 holds the same
 * evidence (.467) at all four. The static tier only breaks BM25's near-ties in recall
 * (staticAloneWeight), so its KNN buys speed with exactness here. Model: 24, not re-measured.
 */
export const PROBES: Record<VectorTier, number> = { static: 12, model: 24 };
/** Vectors the centroids are trained on, evenly spaced over the first scope to get cells. */
export const TRAIN_SAMPLE = 16_384;
/** Neighbours asked of each probed cell at first (knnCells). */
const FIRST_K = 16;
const ITERATIONS = 8;

/**
 * How a tier's vectors are stored: the vec0 element type, the value SQL takes, a stored blob as a
 * unit vector, and how many of a scope's episodes still wait for a vector (the model tier's queue;
 * static vectors are written with their episodes).
 */
type TierCodec = {
  element: string;
  toSql(v: Float32Array): Int8Array | Float32Array;
  read(bytes: Uint8Array, dims: number): Float32Array;
  queuedSql?: string;
  /** Whether a write may replace an episode's vector (a model vector, re-embedded); a static one is written once, for a new episode or a missing vector. */
  replaces: boolean;
};
const CODECS: Record<VectorTier, TierCodec> = {
  static: {
    element: "int8",
    toSql: toInt8Vector,
    read: (bytes, dims) => unit(new Int8Array(bytes.buffer, bytes.byteOffset, dims)),
    replaces: false,
  },
  model: {
    element: "float",
    toSql: (v) => v,
    read: (bytes, dims) => unit(new Float32Array(Uint8Array.from(bytes).buffer, 0, dims)),
    queuedSql: "SELECT count(*) AS n FROM episode_vector_queue q JOIN episodes e ON e.id = q.episode_id WHERE e.scope = ?",
    replaces: true,
  },
};

/** live[c] = 0: cell c has no centroid (its group had fewer sample points than cells) and holds nothing. */
export type Centroids = { dims: number; coarse: Float32Array; fine: Float32Array; live: Uint8Array };

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

/** Unrolled by four, adding in the same order as a plain loop (the same sums): 32 dot products of 256 take ~7.5 µs instead of ~10-12. */
function dot(a: Float32Array, b: Float32Array, at: number, dims: number): number {
  let sum = 0;
  let i = 0;
  for (; i + 3 < dims; i += 4) {
    sum += a[i]! * b[at + i]!;
    sum += a[i + 1]! * b[at + i + 1]!;
    sum += a[i + 2]! * b[at + i + 2]!;
    sum += a[i + 3]! * b[at + i + 3]!;
  }
  for (; i < dims; i++) sum += a[i]! * b[at + i]!;
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

/** The cells of unit-normalised vectors (as maintainCells assigns them): embed-ahead.ts's worker runs it off the writer's thread. */
export function assignCells(centroids: Centroids, vectors: Float32Array[]): Int32Array {
  return Int32Array.from(vectors, (vector) => cellOf(centroids, unit(vector)));
}

/** Cells assigned ahead (assignCells, off the writer's thread), one per item, with these centroids: used only while the tier's centroids are still these. */
export type AssignedCells = { centroids: Centroids; cells: Int32Array };

/** Byte for byte (this runs once per unit written, on the writer's thread). */
const sameCentroids = (a: Centroids, b: Centroids) => a === b || (a.dims === b.dims && sameBytes(a.coarse, b.coarse) && sameBytes(a.fine, b.fine));

/** The `probes` cells whose centroids are nearest a unit query vector, nearest first. */
export function nearestCells(centroids: Centroids, q: Float32Array, probes: number): number[] {
  const scores = Array.from({ length: CELLS }, (_, c) => [c, dot(q, centroids.fine, c * centroids.dims, centroids.dims)] as const).filter(([c]) => centroids.live[c]);
  return scores
    .sort((a, b) => b[1] - a[1])
    .slice(0, probes)
    .map(([c]) => c);
}

/** Centroids read per connection and tier, with the token they were read under. */
const centroidCache = new WeakMap<Database, Map<VectorTier, { state: string; centroids: Centroids }>>();
/**
 * What the tier's centroids were read under: their token (schema.sql's triggers replace it with
 * every write of them, this connection's own uncommitted ones included). A file no writer of this
 * version has opened has no tokens: a read-only connection to it then goes by PRAGMA data_version
 * (another connection's commit) and total_changes() (its own writes).
 */
function centroidState(db: Database, tier: VectorTier): string {
  if (hasLastingTable(db, "cell_centroid_tokens")) return `token:${db.query<{ token: number }, [string]>("SELECT token FROM cell_centroid_tokens WHERE tier = ?").get(tier)?.token ?? "none"}`;
  return fileChanges(db);
}

/** The tier's centroids, decoded once per connection while they do not change (~0.7 ms a decode, 2 ms inside an ingest). */
function readCentroids(db: Database, tier: VectorTier): Centroids | undefined {
  const state = centroidState(db, tier);
  const byTier = centroidCache.get(db) ?? new Map();
  centroidCache.set(db, byTier);
  const cached = byTier.get(tier);
  if (cached?.state === state) return cached.centroids;
  const centroids = decodeCentroids(db, tier);
  if (centroids) byTier.set(tier, { state, centroids });
  else byTier.delete(tier);
  return centroids;
}

function decodeCentroids(db: Database, tier: VectorTier): Centroids | undefined {
  const rows = db.query<{ level: number; centroids: Uint8Array; dims: number }, []>(`SELECT level, centroids, dims FROM ${VECTOR_TIERS[tier].cellCentroids} ORDER BY level`).all();
  if (rows.length !== 2) return undefined;
  const floats = (bytes: Uint8Array) => new Float32Array(Uint8Array.from(bytes).buffer);
  return withLive(rows[0]!.dims, floats(rows[0]!.centroids), floats(rows[1]!.centroids));
}

/** The tier's centroids (undefined before any scope has cells), for assignCells. */
export const tierCentroids = (db: Database, tier: VectorTier): Centroids | undefined => readCentroids(db, tier);

/** Whether this scope's vectors of the tier are in its cells (then every later one must go there too). */
export function scopeHasCells(db: Database, tier: VectorTier, scope: string): boolean {
  const tables = VECTOR_TIERS[tier];
  return hasTable(db, tables.episodeCells) && db.query(`SELECT 1 FROM ${tables.cellScopes} WHERE scope = ?`).get(scope) !== null;
}

/**
 * Keeps the cells of the scopes written to; the caller holds the write transaction and has just
 * stored these episodes' vectors of the tier. A scope that reaches SCOPE_THRESHOLD gets its cells
 * now (the tier's centroids are trained first if it has none): a one-time pause of a few seconds.
 */
export function maintainCells(db: Database, tier: VectorTier, dims: number, items: { key: string | number; scope: string }[], vectors: Float32Array[], assigned?: AssignedCells): void {
  const { episodeCells, sqlVector } = VECTOR_TIERS[tier];
  const codec = CODECS[tier];
  const byScope = new Map<string, number[]>();
  items.forEach((item, i) => {
    const indexes = byScope.get(item.scope);
    if (indexes) indexes.push(i);
    else byScope.set(item.scope, [i]);
  });
  for (const [scope, indexes] of byScope) {
    if (scopeHasCells(db, tier, scope)) {
      const centroids = readCentroids(db, tier)!;
      const cells = assigned && sameCentroids(assigned.centroids, centroids) ? assigned.cells : undefined;
      // A model vector may replace an episode's earlier one: its old cell row goes first (a vec0
      // lookup per write, skipped for static vectors).
      const remove = codec.replaces ? db.query(`DELETE FROM ${episodeCells} WHERE episode_id = ?`) : undefined;
      const insert = db.query(`INSERT INTO ${episodeCells} (episode_id, scope, cell, embedding) VALUES (?, ?, ?, ${sqlVector})`);
      for (const i of indexes) {
        remove?.run(items[i]!.key);
        insert.run(items[i]!.key, scope, cells ? cells[i]! : cellOf(centroids, unit(vectors[i]!)), codec.toSql(vectors[i]!));
      }
    } else if (countVectors(db, codec, scope) >= SCOPE_THRESHOLD) {
      buildScopeCells(db, tier, scope, dims);
    }
  }
}

/**
 * Builds the cells of every scope (of `among`, when given) that has none and holds SCOPE_THRESHOLD
 * vectors of the tier: after vectors were written as rows rather than through maintainCells
 * (`gllam reembed`'s swap, which drops the cells; an import that carries vectors). Left to the
 * scope's next write of the tier, they may never come (a model tier already filled has none), and
 * until then its KNN is brute force (~0.4 s a query at a million). The caller holds the write
 * transaction. Returns the scopes given cells.
 */
export function buildLargeScopeCells(db: Database, tier: VectorTier, dims: number, among?: readonly string[]): string[] {
  const codec = CODECS[tier];
  const large = db.query<{ scope: string }, [number]>("SELECT scope FROM episodes GROUP BY scope HAVING count(*) >= ?").all(SCOPE_THRESHOLD).map((row) => row.scope);
  const built = large.filter((scope) => (!among || among.includes(scope)) && !scopeHasCells(db, tier, scope) && countVectors(db, codec, scope) >= SCOPE_THRESHOLD);
  for (const scope of built) buildScopeCells(db, tier, scope, dims);
  return built;
}

/** The scope's episodes with a vector of the tier; the queue is counted only for a scope that may pass the threshold. */
function countVectors(db: Database, codec: TierCodec, scope: string): number {
  const count = (sql: string) => db.query<{ n: number }, [string]>(sql).get(scope)!.n;
  const episodes = count("SELECT count(*) AS n FROM episodes WHERE scope = ?");
  return episodes < SCOPE_THRESHOLD || !codec.queuedSql ? episodes : episodes - count(codec.queuedSql);
}

/** Copies every vector of the tier in the scope into its cell (training the tier's centroids if needed). */
export function buildScopeCells(db: Database, tier: VectorTier, scope: string, dims: number): void {
  const tables = VECTOR_TIERS[tier];
  const codec = CODECS[tier];
  db.run(`CREATE VIRTUAL TABLE IF NOT EXISTS ${tables.episodeCells} USING vec0(episode_id INTEGER PRIMARY KEY, scope TEXT PARTITION KEY, cell INTEGER PARTITION KEY, embedding ${codec.element}[${dims}] distance_metric=cosine, chunk_size=512)`);
  indexVectorChunks(db, tier);
  // Row by row, in two passes (the sample, then each vector into its cell): the scope may be large.
  // After `gllam reembed` or an import it is built over the whole scope; holding its rows and their
  // decoded vectors at once added 2.6 GB to the process at a million static vectors, row by row 0.13 GB.
  const rows = db.query<{ id: number; embedding: Uint8Array }, [string]>(`SELECT episode_id AS id, embedding FROM ${tables.episodes} WHERE scope = ?`);
  let centroids = readCentroids(db, tier);
  if (!centroids) {
    const count = db.query<{ n: number }, [string]>(`SELECT count(*) AS n FROM ${tables.episodes} WHERE scope = ?`).get(scope)!.n;
    centroids = trainCells(sampleEvenly(rows.iterate(scope), count, TRAIN_SAMPLE, (row) => codec.read(row.embedding, dims)), dims);
    const bytes = (floats: Float32Array) => new Uint8Array(floats.buffer, floats.byteOffset, floats.byteLength);
    const insert = db.query(`INSERT INTO ${tables.cellCentroids} (level, dims, centroids) VALUES (?, ?, ?)`);
    insert.run(0, dims, bytes(centroids.coarse));
    insert.run(1, dims, bytes(centroids.fine));
  }
  const insert = db.query(`INSERT INTO ${tables.episodeCells} (episode_id, scope, cell, embedding) VALUES (?, ?, ?, ${tables.sqlVector})`);
  for (const row of rows.iterate(scope)) insert.run(row.id, scope, cellOf(centroids, codec.read(row.embedding, dims)), row.embedding);
  db.query(`INSERT INTO ${tables.cellScopes} (scope) VALUES (?)`).run(scope);
}

/** Items floor(i * count / size) of `count` (evenly spaced, the first one first), `size` at most, mapped as they stream past. */
export function sampleEvenly<T, U>(items: Iterable<T>, count: number, size: number, map: (item: T) => U): U[] {
  const step = Math.max(1, count / size);
  const sample: U[] = [];
  let i = 0;
  if (size < 1) return sample;
  for (const item of items) {
    if (i++ === Math.floor(sample.length * step) && sample.push(map(item)) === size) break;
  }
  return sample;
}

/**
 * The static cells a query probes in a scope, as scanInt8Partitions takes them (with the table
 * holding them): what knnCells scans. Undefined when the scope has no static cells, or vectors the
 * kernel cannot take.
 */
export function probedStaticCells(db: Database, vector: Float32Array, scope: string, probes = PROBES.static): { table: string; partitions: [string, number][] } | undefined {
  if (!scopeHasCells(db, "static", scope)) return undefined;
  const centroids = readCentroids(db, "static");
  if (!centroids || !scannable(centroids.dims)) return undefined;
  return { table: VECTOR_TIERS.static.episodeCells, partitions: nearestCells(centroids, unit(vector), probes).map((cell) => [scope, cell]) };
}

/**
 * The scopes whose static vectors are in cells (SCOPE_THRESHOLD episodes or more), the one with the
 * latest episode first (each scope's latest is one step down idx_episodes_recent), then by name.
 */
export function scopesWithStaticCells(db: Database): string[] {
  const latest = "(SELECT max(coalesce(e.occurred_at, e.created_at)) FROM episodes e WHERE e.scope = s.scope)";
  return db.query<{ scope: string }, []>(`SELECT s.scope FROM ${VECTOR_TIERS.static.cellScopes} s ORDER BY ${latest} DESC, s.scope`).all().map((row) => row.scope);
}

/**
 * Every static cell of every scope that has them (scope by scope, the latest active first), as
 * scanInt8Partitions takes them, with the table holding them and its vectors' dimension: what a
 * prewarm keeps. Undefined when no scope has static cells, or the kernel cannot take their vectors.
 */
export function allStaticCells(db: Database): { table: string; dims: number; scopes: string[]; partitions: [string, number][] } | undefined {
  const { episodeCells } = VECTOR_TIERS.static;
  const centroids = hasTable(db, episodeCells) ? readCentroids(db, "static") : undefined;
  if (!centroids || !scannable(centroids.dims)) return undefined;
  const scopes = scopesWithStaticCells(db);
  if (scopes.length === 0) return undefined;
  const live = Array.from({ length: CELLS }, (_, cell) => cell).filter((cell) => centroids.live[cell]);
  return { table: episodeCells, dims: centroids.dims, scopes, partitions: scopes.flatMap((scope) => live.map((cell): [string, number] => [scope, cell])) };
}

/**
 * KNN over the tier's cells nearest the query; undefined when the scope has no cells (brute force
 * then). Static cells are scanned (int8-scan.ts). For the model tier, each cell is asked first for
 * a few neighbours (the cost of a vec0 query grows with k: 0.13 ms at k = 10, 0.27 at 100 for a
 * cell of ~400 int8 vectors); only a cell whose last one is still
 * nearer than the k-th best found so far may hold more of the top k, and only it is asked again
 * for k. The answer is the same as asking every cell for k.
 */
export function knnCells(db: Database, tier: VectorTier, vector: Float32Array, k: number, scope: string, probes = PROBES[tier]): EpisodeHit[] | undefined {
  // Static (int8) cells are read chunk by chunk and scored in WebAssembly: the same distances, at
  // about a third of the time of a vec0 query per cell (int8-scan.ts). Model (float) cells stay with vec0.
  const scanned = tier === "static" ? probedStaticCells(db, vector, scope, probes) : undefined;
  if (scanned) return scanInt8Partitions(db, scanned.table, scanned.partitions, toInt8Vector(vector), k);
  if (!scopeHasCells(db, tier, scope)) return undefined;
  const centroids = readCentroids(db, tier);
  if (!centroids) return undefined;
  const { episodeCells, sqlVector } = VECTOR_TIERS[tier];
  const probed = nearestCells(centroids, unit(vector), probes);
  const query = db.query<EpisodeHit, [Int8Array | Float32Array, number, string, number]>(
    `SELECT episode_id AS episodeId, distance FROM ${episodeCells} WHERE embedding MATCH ${sqlVector} AND k = ? AND scope = ? AND cell = ?`,
  );
  const q = CODECS[tier].toSql(vector);
  const firstK = Math.min(k, Math.max(FIRST_K, Math.ceil((2 * k) / probes)));
  const cells = probed.map((cell) => ({ cell, hits: query.all(q, firstK, scope, cell) }));
  const kth = (hits: EpisodeHit[]) => hits.sort((a, b) => a.distance - b.distance)[k - 1]?.distance ?? Infinity;
  // The k-th best so far never falls below the final one, so it bounds what a cell's unseen
  // neighbours could add; each re-asked cell (nearest cells first) tightens it for the rest.
  let bound = kth(cells.flatMap((c) => c.hits));
  for (const c of cells) {
    if (c.hits.length < firstK || firstK >= k || c.hits.at(-1)!.distance > bound) continue;
    c.hits = query.all(q, k, scope, c.cell);
    bound = kth(cells.flatMap((cell) => cell.hits));
  }
  return cells
    .flatMap((c) => c.hits)
    .sort((a, b) => a.distance - b.distance)
    .slice(0, k);
}
