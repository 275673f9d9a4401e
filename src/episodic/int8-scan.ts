/**
 * KNN over int8 vectors read straight from a vec0 table's chunks, scored with WebAssembly SIMD
 * (int8-distances.wat). sqlite-vec 0.1.9 scores int8 cosine in a scalar loop (~0.3-0.5 µs per
 * int8[256] vector, plus a partition lookup and a top-k per query); here a chunk of 512 vectors is
 * one contiguous blob, and the kernel scores ~40 vectors per µs with the same arithmetic, so the
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
 * MB (a read per 4 KB page), where scoring it takes ~12 µs. So the vectors of the chunks scanned
 * most recently stay in the kernel's memory (chunk-slots.ts says when they may be used), with
 * their squared norms, and a query over them computes only dot products.
 */
import type { Database } from "bun:sqlite";
import { readFileState } from "../engine/file-state.ts";
import { ptr } from "bun:ffi";
import { ChunkSlots } from "./chunk-slots.ts";
import { INT8_KERNEL } from "./int8-kernel.ts";
import { openNativeSlab, type NativeSlab } from "./native-slab.ts";
import type { EpisodeHit } from "./vectors.ts";

type Kernel = {
  memory: WebAssembly.Memory;
  magnitudes(base: number, n: number, dims: number, out: number): void;
  distances(q: number, qNorm: number, base: number, n: number, dims: number, mags: number, out: number): void;
};

/**
 * The kernel's memory: the query at 0, the distances of one slot's vectors at OUT, one slot's
 * vectors at BASE and their squared norms at MAGS, then room for int8Distances' vectors. A slot is
 * SLOT_BYTES of vectors: one chunk of the cells (512 x int8[256]); a chunk of episode_static_vectors
 * (1,024) takes two.
 */
const OUT = 16_384;
const BASE = 65_536;
const SLOT_BYTES = 131_072;
/** A slot's norms take at most a quarter of its bytes (16 dimensions, 4 bytes each). */
const SLOT_MAGS = SLOT_BYTES / 4;
const MAGS = BASE + SLOT_BYTES;
const TAIL = MAGS + SLOT_MAGS;

/**
 * The chunks scanned most recently, kept with their norms in SLOTS slots of a native slab
 * (native-slab.ts; chunk-slots.ts says when a kept chunk may be used). 512 slots (64 MiB, resident
 * once filled: what the peak RSS goal leaves) hold a quarter of a 1M-episode scope's cells and the
 * whole of a 100K one's; on the 1M bench file about half of the chunks its questions read (they read
 * 80% of the cells) are found there (README "Scale").
 */
const SLOTS = 512;
const SLOT_STRIDE = SLOT_BYTES + SLOT_MAGS;
const slots = new ChunkSlots(SLOTS);
let slab: NativeSlab | undefined | null = null;

/** Compiled once per thread, on first use; its first calls run in JavaScriptCore's lower tiers (~5 ms for the first chunk, ~0.03 ms a chunk once warm). */
let kernel: Kernel | undefined;
function loadKernel(bytes: number): Kernel {
  kernel ??= new WebAssembly.Instance(new WebAssembly.Module(INT8_KERNEL)).exports as unknown as Kernel;
  const have = kernel.memory.buffer.byteLength;
  if (have < bytes) kernel.memory.grow(Math.ceil((bytes - have) / 65_536));
  return kernel;
}

/** Whether the kernel takes vectors of this dimension (it reads 16 dimensions at a time; a slot's distances fit below BASE). */
export function scannable(dims: number): boolean {
  return dims > 0 && dims % 16 === 0 && dims <= OUT && (SLOT_BYTES / dims) * 4 <= BASE - OUT;
}

/** Writes the query at 0 and returns its norm. */
function placeQuery(k: Kernel, query: Int8Array): number {
  new Uint8Array(k.memory.buffer).set(new Uint8Array(query.buffer, query.byteOffset, query.length), 0);
  let norm = 0;
  for (let i = 0; i < query.length; i++) norm += query[i]! * query[i]!;
  return Math.sqrt(norm);
}

/**
 * The cosine distances of `count` int8 vectors (one after the other in `vectors`) to the query,
 * as sqlite-vec's distance_cosine_int8 computes them. The returned array is a view of the
 * kernel's memory: read it before the next call.
 */
export function int8Distances(query: Int8Array, vectors: Uint8Array, count: number): Float32Array {
  const dims = query.length;
  if (!scannable(dims) || vectors.length < count * dims) throw new Error(`int8Distances: ${count} vectors of ${dims} dimensions need a multiple of 16 and ${count * dims} bytes`);
  // After the scan's slot: the vectors, their norms, then the distances (16-byte aligned).
  const mags = TAIL + Math.ceil((count * dims) / 16) * 16;
  const out = mags + count * 4;
  const k = loadKernel(out + count * 4);
  const qNorm = placeQuery(k, query);
  new Uint8Array(k.memory.buffer).set(vectors.subarray(0, count * dims), TAIL);
  k.magnitudes(TAIL, count, dims, mags);
  k.distances(0, qNorm, TAIL, count, dims, mags, out);
  return new Float32Array(k.memory.buffer, out, count);
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

type ChunkRow = { id: number; validity: Uint8Array; rowids: Uint8Array };

/** A partition's keys, in the order the vec0 table declares them (scope, or scope and cell). */
type PartitionKeys = [string] | [string, number];

/**
 * What a connection saw of the partitions it scanned: their chunks' rows (id, validity, rowids)
 * while the file is unchanged (readFileState), so a scan of a warm partition reads nothing from
 * SQLite (those rows are 4 KB each: ~1 ms a query at 1M). Slot keys start with the connection's
 * number and the schema's version (another file's, or a remade table's, chunk ids are others).
 */
type Seen = { state: string; keyPrefix: string; partitions: Map<string, ChunkRow[]> };
const seenBy = new WeakMap<Database, Seen>();
let connectionCount = 0;

function seen(db: Database): Seen {
  const state = readFileState(db);
  let view = seenBy.get(db);
  if (view?.state !== state) {
    const number = view ? view.keyPrefix.split(":")[0] : String(++connectionCount);
    view = { state, keyPrefix: `${number}:${state.split(":")[2]}:`, partitions: new Map() };
    seenBy.set(db, view);
  }
  return view;
}

/**
 * Scores a chunk's vectors, slot by slot, with `score(count, first)` once each slot's vectors are at
 * BASE and their norms at MAGS: copied from the slab if the chunk is kept and unchanged, else read
 * now (SQLite's 128 KB blob: what bounds a scan) and kept.
 */
function scanChunk(db: Database, table: string, key: string, chunk: ChunkRow, dims: number, memoryAt: number, score: (count: number, first: number) => void): void {
  const perSlot = Math.floor(SLOT_BYTES / dims);
  const kept = slab ? slots.find(key, chunk.validity, chunk.rowids) : undefined;
  if (kept) {
    kept.slots.forEach((slot, s) => {
      const count = Math.min(perSlot, kept.count - s * perSlot);
      slab!.copy(memoryAt + BASE, slab!.base + slot * SLOT_STRIDE, count * dims);
      slab!.copy(memoryAt + MAGS, slab!.base + slot * SLOT_STRIDE + SLOT_BYTES, count * 4);
      score(count, s * perSlot);
    });
    return;
  }
  const vectors = db.query<{ vectors: Uint8Array }, [number]>(`SELECT vectors FROM "${table}_vector_chunks00" WHERE rowid = ?`).get(chunk.id)?.vectors;
  if (!vectors) return;
  const total = Math.floor(vectors.length / dims);
  const fresh = slab ? slots.keep(key, Math.ceil(total / perSlot), total, chunk.validity, chunk.rowids) : undefined;
  for (let s = 0, first = 0; first < total; s++, first += perSlot) {
    const count = Math.min(perSlot, total - first);
    new Uint8Array(kernel!.memory.buffer).set(vectors.subarray(first * dims, (first + count) * dims), BASE);
    kernel!.magnitudes(BASE, count, dims, MAGS);
    if (fresh) {
      slab!.copy(slab!.base + fresh.slots[s]! * SLOT_STRIDE, memoryAt + BASE, count * dims);
      slab!.copy(slab!.base + fresh.slots[s]! * SLOT_STRIDE + SLOT_BYTES, memoryAt + MAGS, count * 4);
    }
    score(count, first);
  }
}

/**
 * The k nearest episodes to an int8 query among the vectors of a vec0 table (episode_id primary
 * key, its partition keys) in the given partitions, nearest first, ties newest first. A vector
 * with no direction (all zeros) has no distance and is never a neighbour.
 */
export function scanInt8Partitions(db: Database, table: string, partitions: PartitionKeys[], query: Int8Array, k: number): EpisodeHit[] {
  const nearest = new NearestK(k);
  if (partitions.length === 0) return [];
  const dims = query.length;
  const keys = partitions[0]!.map((_, i) => `partition0${i} = ?`).join(" AND ");
  const chunks = db.query<ChunkRow, PartitionKeys>(`SELECT chunk_id AS id, validity, rowids FROM "${table}_chunks" WHERE ${keys}`);
  const view = seen(db);
  const keyPrefix = `${view.keyPrefix}${table}:`;
  const chunksOf = (partition: PartitionKeys) => {
    const key = `${table}\0${partition.join("\0")}`;
    const rows = view.partitions.get(key) ?? chunks.all(...partition);
    view.partitions.set(key, rows);
    return rows;
  };
  const kern = loadKernel(TAIL);
  if (slab === null) slab = openNativeSlab(SLOTS * SLOT_STRIDE);
  const qNorm = placeQuery(kern, query);
  // The memory does not grow during a scan (loadKernel grew it to TAIL): one address, one view of the distances.
  const memoryAt = slab ? Number(ptr(new Uint8Array(kern.memory.buffer))) : 0;
  const distances = new Float32Array(kern.memory.buffer, OUT, Math.floor(SLOT_BYTES / dims));
  // The distance is tested first (most vectors fail it once the heap is full), against a bound kept
  // in a local; a rowid is read only for a vector kept.
  let bound = nearest.bound;
  for (const partition of partitions) {
    for (const chunk of chunksOf(partition)) {
      const { validity, rowids } = chunk;
      scanChunk(db, table, `${keyPrefix}${chunk.id}`, chunk, dims, memoryAt, (count, first) => {
        kern.distances(0, qNorm, BASE, count, dims, MAGS, OUT);
        for (let j = 0; j < count; j++) {
          const distance = distances[j]!;
          const i = first + j;
          // Most fail here; NaN (a zero vector) too.
          if (!(distance <= bound) || !(validity[i >> 3]! & (1 << (i & 7)))) continue;
          nearest.offer(Number(new DataView(rowids.buffer, rowids.byteOffset).getBigInt64(i * 8, true)), distance);
          bound = nearest.bound;
        }
      });
    }
  }
  return nearest.hits();
}
