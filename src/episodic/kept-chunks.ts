/**
 * vec0 chunks of int8 vectors kept in memory between scans, by the static KNN's worker
 * (knn-beside.ts). At 1M episodes a recall's probed cells are ~170 chunks (~22 MB): reading them
 * out of SQLite was most of the KNN's time. A kept chunk sits in a kernel instance of its own with
 * its vectors' norms (computed once), and is scored where it lies: no read, no copy, and half the
 * kernel's work (normedDistances).
 *
 * A kept chunk is used only while its row's validity bitmap and rowids are byte for byte what they
 * were when it was read. The rows are read again after any write to the file (fileChanges), ~4 KB
 * a chunk, and kept while nothing is written. That is enough for the static cells it serves: vec0
 * writes a vector into a free slot and sets its bit and rowid with it, episode ids are never
 * reused, a static vector is never replaced (episode-cells.ts: CODECS.static.replaces), and
 * replacing the tier drops the table, which moves the schema version (every chunk is let go).
 *
 * Bounded by `maxBytes` (least recently used out; StoreOptions.knnCacheMiB). The bytes are the
 * process's own memory: ~220 MB for the probed cells of the 1M-episode bench file.
 */
import type { Database } from "bun:sqlite";
import { fileChanges, schemaVersion } from "../engine/file-state.ts";
import { int8Kernel, type Kernel } from "./int8-scan.ts";
import { sameBytes } from "./same-bytes.ts";

/** Whether a scan found most of its chunks kept (at least 9 in 10): then it is several times faster than one that reads them. */
export const mostlyKept = (hits: number, misses: number): boolean => hits > 0 && misses * 10 <= hits + misses;

/** A chunk as its row gives it: which slots hold a vector, and their episode ids (int64). */
export type ChunkState = { chunkId: number; validity: Uint8Array; rowids: Uint8Array };

type Kept = { offset: number; validity: Uint8Array; rowids: Uint8Array };

const align = (n: number, to: number): number => Math.ceil(n / to) * to;

export class KeptChunks {
  #kernel: Kernel | undefined;
  /** Chunk id to its slot, least recently used first (a Map keeps insertion order). */
  readonly #kept = new Map<number, Kept>();
  #free: number[] = [];
  /**
   * Slots made so far, each #slotBytes long from #slotsAt on (the query and the distances come
   * first): a chunk's vectors (#chunkBytes), then each one's norm (f64), computed once when kept.
   */
  #slots = 0;
  #chunkBytes = 0;
  #slotBytes = 0;
  #slotsAt = 0;
  #dims = 0;
  #table = "";
  #schemaVersion = -1;
  #changes = "";
  /**
   * Each partition's chunk rows, while nothing is written to the file (fileChanges),
   * and their bytes: a chunk's row is 1/32 of its vectors (int8[256]), and the rows are let go
   * when they pass a sixteenth of maxBytes.
   */
  readonly #rows = new Map<string, ChunkState[]>();
  #rowBytes = 0;
  /** Chunks read from SQLite (not kept, or changed since they were) and chunks scored where they were kept. */
  misses = 0;
  hits = 0;

  constructor(readonly maxBytes: number) {}

  /** Bytes of chunks held. */
  get bytes(): number {
    return this.#kept.size * this.#slotBytes;
  }

  /** Lets every chunk go when the scan is of another table or dimension, or the file's schema changed (a table made again). */
  begin(db: Database, table: string, dims: number): void {
    const version = schemaVersion(db);
    const changes = fileChanges(db);
    if (changes !== this.#changes || table !== this.#table || this.#rowBytes > this.maxBytes / 16) {
      this.#rows.clear();
      this.#rowBytes = 0;
    }
    this.#changes = changes;
    if (table === this.#table && version === this.#schemaVersion && dims === this.#dims) return;
    this.#kept.clear();
    this.#free = Array.from({ length: this.#slots }, (_, i) => this.#slots - 1 - i);
    // The query and distances before the slots take room by the dimension: slots are cut again.
    if (dims !== this.#dims) this.#chunkBytes = 0;
    [this.#table, this.#schemaVersion, this.#dims] = [table, version, dims];
  }

  /** A partition's chunk rows (`read` unless the file is as it was when they were read last). */
  chunksOf(partition: (string | number)[], read: () => ChunkState[]): ChunkState[] {
    const key = partition.join("\u0000");
    let rows = this.#rows.get(key);
    if (!rows) {
      this.#rows.set(key, (rows = read()));
      for (const row of rows) this.#rowBytes += row.validity.length + row.rowids.length;
    }
    return rows;
  }

  /**
   * The chunk's distances to the query (a view of the kernel's memory: read it before the next
   * call), scored where it is kept, or read (`read`) and kept first. Undefined when it cannot be
   * kept (maxBytes holds no chunk of its size, or it is not of the kept chunks' size): the caller
   * scores it itself.
   */
  distances(chunk: ChunkState, query: Int8Array, queryNorm: number, read: () => Uint8Array): Float32Array | undefined {
    let kept = this.#kept.get(chunk.chunkId);
    if (kept && sameBytes(kept.validity, chunk.validity) && sameBytes(kept.rowids, chunk.rowids)) {
      this.#kept.delete(chunk.chunkId);
      this.hits++;
    } else {
      if (kept) this.#free.push(this.#release(chunk.chunkId, kept));
      const vectors = read();
      this.misses++;
      const offset = this.#slotFor(vectors.length);
      if (offset === undefined) return undefined;
      new Uint8Array(this.#kernel!.memory.buffer).set(vectors, offset);
      this.#kernel!.norms(offset, vectors.length / this.#dims, this.#dims, offset + vectors.length);
      // The row's own arrays (bun:sqlite copies a blob out): the next scan's rows, while the file is unchanged, are these.
      kept = { offset, validity: chunk.validity, rowids: chunk.rowids };
    }
    this.#kept.set(chunk.chunkId, kept);
    const dims = this.#dims;
    const count = this.#chunkBytes / dims;
    new Uint8Array(this.#kernel!.memory.buffer).set(new Uint8Array(query.buffer, query.byteOffset, dims), 0);
    this.#kernel!.normedDistances(0, queryNorm, kept.offset, count, dims, kept.offset + this.#chunkBytes, align(dims, 16));
    return new Float32Array(this.#kernel!.memory.buffer, align(dims, 16), count);
  }

  #release(chunkId: number, kept: Kept): number {
    this.#kept.delete(chunkId);
    return (kept.offset - this.#slotsAt) / this.#slotBytes;
  }

  /** A slot's offset for a chunk of this many bytes: a free one, a new one, or the least recently used one's. */
  #slotFor(bytes: number): number | undefined {
    const count = bytes / this.#dims;
    if (bytes === 0 || !Number.isInteger(count) || bytes + count * 8 > this.maxBytes) return undefined;
    if (bytes !== this.#chunkBytes) {
      // A table's chunks all have one size: slots are cut again only when none is in use.
      if (this.#kept.size > 0) return undefined;
      this.#kernel ??= int8Kernel();
      [this.#chunkBytes, this.#slotBytes, this.#slotsAt, this.#slots, this.#free] = [bytes, bytes + count * 8, align(align(this.#dims, 16) + count * 4, 16), 0, []];
    }
    let slot = this.#free.pop();
    if (slot === undefined && (this.#slots + 1) * this.#slotBytes <= this.maxBytes) {
      slot = this.#slots++;
      const end = this.#slotsAt + this.#slots * this.#slotBytes;
      const memory = this.#kernel!.memory;
      // Grown by a quarter at least (up to the bound): a grow may copy the memory.
      const have = memory.buffer.byteLength;
      if (have < end) memory.grow(Math.ceil((Math.max(end, Math.min(have * 1.25, this.#slotsAt + this.maxBytes)) - have) / 65_536));
    }
    if (slot === undefined) {
      const [oldest] = this.#kept;
      if (!oldest) return undefined;
      slot = this.#release(oldest[0], oldest[1]);
    }
    return this.#slotsAt + slot * this.#slotBytes;
  }
}
