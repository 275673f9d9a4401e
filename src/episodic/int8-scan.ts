/**
 * KNN over int8 vectors read straight from a vec0 table's chunks, scored with WebAssembly SIMD
 * (int8-distances.wat; its dots3, three queries' dot products in one pass, serves the word space). sqlite-vec 0.1.9 scores int8 cosine in a scalar loop (~0.3-0.5 µs per
 * int8[256] vector, plus a partition lookup and a top-k per query); here a chunk of 512 vectors is
 * one contiguous blob, and the kernel scores ~70 vectors per µs (four a pass) with the same arithmetic, so the
 * distances are sqlite-vec's to the bit and the k nearest are the same (ties: the newest episode
 * first, as vec0's brute force orders them).
 *
 * It reads vec0's shadow tables as sqlite-vec 0.1.9 (pinned in package.json) lays them out: a
 * `<table>_chunks` row per chunk (its partition keys, a validity bitmap, the rowids as int64) and
 * its vectors in `<table>_vector_chunks00` under the chunk's id. test/episodic/int8-scan.test.ts
 * checks the answers against vec0's own KNN, so a layout change in an upgrade fails there.
 *
 * A partition's chunks are found as vec0 finds them: through the cells' index on (scope, cell)
 * (indexVectorChunks), and by reading the chunk rows of episode_static_vectors (one per 1,024
 * vectors of the file, without their blobs) for a scope without cells, as vec0's own KNN does.
 * What bounds a scan is reading the vectors: SQLite hands a chunk's 128 KB over at ~0.3-0.7 ms per
 * MB (docs/scale-history.md, "The static KNN, third pass"), where scoring it takes ~7-10 µs. So the
 * KNN worker keeps the chunks it reads (kept-chunks.ts) and scores them where they lie.
 */
import type { Database } from "bun:sqlite";
import { INT8_KERNEL } from "./int8-kernel.ts";
import type { ChunkState, KeptChunks, PartitionRows } from "./kept-chunks.ts";
import type { EpisodeHit } from "./vectors.ts";

export type Kernel = {
  memory: WebAssembly.Memory;
  dots3(q: number, base: number, n: number, dims: number, out: number): void;
  norms(base: number, n: number, dims: number, out: number): void;
  /** The cosine distances of the vectors from `base`, whose norms are at `norms` (f64), to the query at `qw` widened to int16. */
  normedDistances(qw: number, qNorm: number, base: number, n: number, dims: number, norms: number, out: number): void;
};

let kernelModule: WebAssembly.Module | undefined;
/** A kernel instance with a memory of its own (the module compiled once per thread). */
export function int8Kernel(): Kernel {
  kernelModule ??= new WebAssembly.Module(INT8_KERNEL);
  return new WebAssembly.Instance(kernelModule).exports as unknown as Kernel;
}

/** The thread's kernel for vectors passed in, made on first use; its first calls run in JavaScriptCore's lower tiers (~5 ms for the first chunk, ~0.03 ms a chunk once warm). */
let kernel: Kernel | undefined;
function loadKernel(): Kernel {
  kernel ??= int8Kernel();
  return kernel;
}

/** Whether the kernel takes vectors of this dimension (it reads 16 dimensions at a time). */
export function scannable(dims: number): boolean {
  return dims > 0 && dims % 16 === 0;
}

/** n rounded up to a multiple of 16: where the kernel's next area starts (its v128 loads read 16 bytes). */
export const align16 = (n: number): number => Math.ceil(n / 16) * 16;

/** Bytes a query of `dims` takes at the start of a kernel's memory, widened to int16 as normedDistances takes it. */
export const widenedQueryBytes = (dims: number): number => align16(2 * dims);

/** Writes the query, widened to int16, at the start of the kernel's memory (normedDistances' `qw` 0); returns where the room after it starts. */
export function writeWidenedQuery(k: Kernel, query: Int8Array): number {
  new Int16Array(k.memory.buffer, 0, query.length).set(query);
  return widenedQueryBytes(query.length);
}

/**
 * The cosine distances of `count` int8 vectors (one after the other in `vectors`) to the query,
 * as sqlite-vec's distance_cosine_int8 computes them. The returned array is a view of the
 * kernel's memory: read it before the next call.
 */
export function int8Distances(query: Int8Array, vectors: Uint8Array, count: number): Float32Array {
  const dims = query.length;
  if (!scannable(dims) || vectors.length < count * dims) throw new Error(`int8Distances: ${count} vectors of ${dims} dimensions need a multiple of 16 and ${count * dims} bytes`);
  const k = loadKernel();
  // Layout (16-byte aligned): the query widened to int16, the distances, the vectors' norms, then the vectors.
  const out = widenedQueryBytes(dims);
  const norms = out + align16(count * 4);
  const base = norms + align16(count * 8);
  const bytes = kernelMemory(k, base + count * dims);
  writeWidenedQuery(k, query);
  bytes.set(vectors.subarray(0, count * dims), base);
  // The norms, then the dot products four vectors a pass: fewer instructions than both in one pass.
  k.norms(base, count, dims, norms);
  k.normedDistances(0, int8Norm(query), base, count, dims, norms, out);
  return new Float32Array(k.memory.buffer, out, count);
}

/** A query's norm, as the kernel takes it (sqlite-vec's arithmetic: the integer sum of squares, then its root). */
export function int8Norm(query: Int8Array): number {
  let sum = 0;
  for (let i = 0; i < query.length; i++) sum += query[i]! * query[i]!;
  return Math.sqrt(sum);
}

/** The kernel's memory holding `bytes` from offset 0 on (grown as needed). */
function kernelMemory(k: Kernel, bytes: number): Uint8Array {
  if (k.memory.buffer.byteLength < bytes) k.memory.grow(Math.ceil((bytes - k.memory.buffer.byteLength) / 65_536));
  return new Uint8Array(k.memory.buffer);
}

/**
 * The integer dot products of `count` int8 vectors (one after the other in `vectors`) with each of
 * up to three queries of their dimension, in one pass over the vectors: result[3 * i + j] is vector
 * i's with query j. The returned array is a view of the kernel's memory: read it before the next call.
 */
export function int8Dots(queries: Int8Array[], vectors: Uint8Array, count: number): Int32Array {
  const dims = queries[0]?.length ?? 0;
  if (queries.length < 1 || queries.length > 3 || queries.some((q) => q.length !== dims)) throw new Error(`int8Dots: 1 to 3 queries of one dimension, got ${queries.length}`);
  if (!scannable(dims) || vectors.length < count * dims) throw new Error(`int8Dots: ${count} vectors of ${dims} dimensions need a multiple of 16 and ${count * dims} bytes`);
  const k = loadKernel();
  // Layout: three queries (a missing one repeats the first), the dot products, then the vectors (16-byte aligned).
  const out = 3 * dims;
  const base = out + align16(count * 12);
  const bytes = kernelMemory(k, base + count * dims);
  for (let j = 0; j < 3; j++) {
    const query = queries[j] ?? queries[0]!;
    bytes.set(new Uint8Array(query.buffer, query.byteOffset, dims), j * dims);
  }
  bytes.set(vectors.subarray(0, count * dims), base);
  k.dots3(0, base, count, dims, out);
  return new Int32Array(k.memory.buffer, out, count * 3);
}

/** The k best (distance, id) pairs seen, nearest first and among equals the larger id (newer episode), kept as a heap whose root is the one to drop first. */
export class NearestK {
  private readonly distances: number[] = [];
  private readonly ids: number[] = [];
  constructor(private readonly k: number) {}

  /** The distance a newcomer must beat (or tie with a larger id) to enter. */
  get bound(): number {
    return this.ids.length < this.k ? Infinity : this.distances[0]!;
  }

  offer(id: number, distance: number): void {
    const n = this.ids.length;
    if (n < this.k) {
      this.distances.push(distance);
      this.ids.push(id);
      this.siftUp(n);
    } else if (this.k > 0 && this.worse(0, distance, id)) {
      this.distances[0] = distance;
      this.ids[0] = id;
      this.siftDown(0);
    }
  }

  /** Nearest first, ties newest first. */
  hits(): EpisodeHit[] {
    return this.ids.map((episodeId, i) => ({ episodeId, distance: this.distances[i]! })).sort((a, b) => a.distance - b.distance || b.episodeId - a.episodeId);
  }

  /** Whether the entry at i ranks after (distance, id). */
  private worse(i: number, distance: number, id: number): boolean {
    return this.distances[i]! > distance || (this.distances[i] === distance && this.ids[i]! < id);
  }

  private swap(i: number, j: number): void {
    [this.distances[i], this.distances[j]] = [this.distances[j]!, this.distances[i]!];
    [this.ids[i], this.ids[j]] = [this.ids[j]!, this.ids[i]!];
  }

  private siftUp(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.worse(i, this.distances[parent]!, this.ids[parent]!)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const n = this.ids.length;
    for (;;) {
      let top = i;
      for (const child of [2 * i + 1, 2 * i + 2]) if (child < n && this.worse(child, this.distances[top]!, this.ids[top]!)) top = child;
      if (top === i) return;
      this.swap(i, top);
      i = top;
    }
  }
}

type ChunkRow = ChunkState & { vectors?: Uint8Array };

/**
 * A scan that copied this many bytes of chunks out of SQLite asks for a collection at its end
 * (Bun.gc(false), asynchronous): every chunk came out as a fresh copy, now garbage, which
 * JavaScriptCore otherwise collects at some later point, inside another query. At 1M episodes (each
 * thread copies ~11 MB a recall) recall p50 / p95 went 19.1 / 44.6 and 20.7 / 41.3 ms to 17.9 / 39.3
 * and 19.0 / 34.0 (alternated runs of bench/scale/query-file.ts). At 10K (2.6 MB a scan) the
 * request cost more than it saved: p95 10.4-11.1 -> 6.2-7.5 ms but p50 3.0 -> 3.8.
 */
const COLLECT_AFTER_BYTES = 8 << 20;

/** A partition's keys, in the order the vec0 table declares them (scope, or scope and cell). */
type PartitionKeys = [string] | [string, number];

/** Hands out the partitions one after the other: the index of the next to scan, past the end when none is left. */
export type PartitionClaim = () => number;
const eachInTurn = (): PartitionClaim => {
  let next = 0;
  return () => next++;
};

/**
 * The k nearest episodes to an int8 query among the vectors of a vec0 table (episode_id primary
 * key, its partition keys) in the given partitions, nearest first, ties newest first. A vector
 * with no direction (all zeros) has no distance and is never a neighbour. With `claim`, only the
 * partitions it hands out are scanned: two threads sharing a counter split them (knn-beside.ts),
 * and mergeNearest of their answers is the answer of one scan of all. With `kept`, chunks are
 * scored where it keeps them, and those it does not hold wait to be kept as they were read (kept-chunks.ts).
 */
export function scanInt8Partitions(db: Database, table: string, partitions: PartitionKeys[], query: Int8Array, k: number, claim: PartitionClaim = eachInTurn(), kept?: KeptChunks): EpisodeHit[] {
  const nearest = new NearestK(k);
  if (partitions.length === 0) return [];
  // With chunks kept, a chunk's vectors are read only when it is not kept as it is now.
  const { chunks, rowsOf, vectorsOf } = chunkStatements(db, table, partitions[0]!.length, !kept);
  const dims = query.length;
  kept?.begin(db, table, dims);
  const queryNorm = int8Norm(query);
  const scoreRead = (vectors: Uint8Array) => int8Distances(query, vectors, vectors.length / dims);
  // The distance is tested first (most vectors fail it once the heap is full), against a bound kept
  // in a local; a rowid is read only for a vector kept.
  let bound = nearest.bound;
  let read = 0;
  for (let p = claim(); p < partitions.length; p = claim()) {
    const keys = partitions[p]!;
    const rows: Iterable<ChunkRow> = kept ? kept.chunksOf(keys, rowsOf) : chunks.iterate(...keys);
    for (const chunk of rows) {
      // Read with the row, or only when the kept chunks do not hold it as it is now.
      let vectors = chunk.vectors;
      const readChunk = () => (vectors ??= vectorsOf(chunk.chunkId));
      const distances = kept ? kept.distances(chunk, query, queryNorm, readChunk) : scoreRead(readChunk());
      read += vectors?.length ?? 0;
      const { validity } = chunk;
      for (let i = 0; i < distances.length; i++) {
        const distance = distances[i]!;
        // Most fail here; NaN (a zero vector) too.
        if (!(distance <= bound) || !(validity[i >> 3]! & (1 << (i & 7)))) continue;
        nearest.offer(Number(new DataView(chunk.rowids.buffer, chunk.rowids.byteOffset).getBigInt64(i * 8, true)), distance);
        bound = nearest.bound;
      }
    }
  }
  if (read >= COLLECT_AFTER_BYTES) Bun.gc(false);
  return nearest.hits();
}

/**
 * The statements that read a vec0 table's chunks in a partition (their rows, with their vectors
 * when `withVectors`), its last chunk's row (where vec0 puts the partition's next vector: it fills
 * the chunk with the largest id, then makes a new one), and one chunk's vectors by its id.
 */
function chunkStatements(db: Database, table: string, keys: number, withVectors: boolean) {
  const where = Array.from({ length: keys }, (_, i) => `c.partition0${i} = ?`).join(" AND ");
  const chunks = db.query<ChunkRow, PartitionKeys>(
    `SELECT c.chunk_id AS chunkId, c.validity, c.rowids${withVectors ? ", v.vectors" : ""} FROM "${table}_chunks" c ${withVectors ? `JOIN "${table}_vector_chunks00" v ON v._rowid_ = c.chunk_id` : ""} WHERE ${where}`,
  );
  const lastChunk = db.query<ChunkState, PartitionKeys>(`SELECT c.chunk_id AS chunkId, c.validity, c.rowids FROM "${table}_chunks" c WHERE ${where} ORDER BY c.chunk_id DESC LIMIT 1`);
  const rowsOf: PartitionRows = { all: (keys) => chunks.all(...(keys as PartitionKeys)), last: (keys) => lastChunk.get(...(keys as PartitionKeys)) ?? undefined };
  const readVectors = db.query<{ vectors: Uint8Array }, [number]>(`SELECT vectors FROM "${table}_vector_chunks00" WHERE _rowid_ = ?`);
  return { chunks, rowsOf, vectorsOf: (chunkId: number) => readVectors.get(chunkId)?.vectors ?? new Uint8Array(0) };
}

/** Where a prewarm stopped: the partition to go on from (all of them: done), and whether the kept chunks' room is full. */
export type PrewarmProgress = { next: number; full: boolean };

/**
 * Keeps the chunks of a vec0 table's partitions (int8 vectors of `dims` dimensions) in `kept`
 * before any scan asks for them, from partition `from` on, until every one is kept, the room is
 * full (nothing kept is let go for it), or `stop` says to stop: it is asked before each chunk is
 * read (~0.4 ms a chunk to keep, most of it the first touch of the memory it goes to).
 */
export function prewarmInt8Partitions(db: Database, table: string, partitions: PartitionKeys[], dims: number, kept: KeptChunks, from: number, stop: () => boolean): PrewarmProgress {
  if (from >= partitions.length) return { next: from, full: false };
  const { rowsOf, vectorsOf } = chunkStatements(db, table, partitions[0]!.length, false);
  kept.begin(db, table, dims);
  for (let p = from; p < partitions.length; p++) {
    const keys = partitions[p]!;
    for (const chunk of kept.chunksOf(keys, rowsOf)) {
      if (stop()) return { next: p, full: false };
      if (!kept.prewarm(chunk, () => vectorsOf(chunk.chunkId))) return { next: p, full: true };
    }
  }
  return { next: partitions.length, full: false };
}

/** The k nearest of several lists of hits (each vector in one list at most), ordered as one scan orders them: a heap's k best do not depend on the order they came in. */
export function mergeNearest(lists: EpisodeHit[][], k: number): EpisodeHit[] {
  const nearest = new NearestK(k);
  for (const list of lists) for (const hit of list) nearest.offer(hit.episodeId, hit.distance);
  return nearest.hits();
}
