/**
 * vec0 chunks of int8 vectors kept in memory between scans, by the static KNN's worker
 * (knn-beside.ts). At 1M episodes a recall's probed cells are ~170 chunks (~22 MB): reading them
 * out of SQLite was most of the KNN's time. A kept chunk sits in a kernel instance of its own with
 * its vectors' norms (computed once), and is scored where it lies: no read, no copy, and half the
 * kernel's work (normedDistances).
 *
 * A kept chunk is used only while its row's validity bitmap and rowids are byte for byte what they
 * are now. That is enough for the static cells it serves: vec0 writes a vector into a free slot and
 * sets its bit and rowid with it, episode ids are never reused, a static vector is never replaced
 * (episode-cells.ts: CODECS.static.replaces), and replacing the tier drops the table, which moves
 * the schema version (every chunk is let go). The rows (~4 KB a chunk) are held between scans.
 * After a write, a partition's rows are read again only when its last chunk's row has changed:
 * vec0 puts a new vector in the partition's last chunk (or a new one after it), never in a slot a
 * deletion freed before it. A deletion can change any chunk: forget deletes the episodes with their
 * vectors, which moves the file's removal token (episodeRemovals), and then every row is read
 * again, as after any write in a file without the token. Reading every probed partition's rows
 * again after each write was ~6 ms of a static search at 1M episodes (an agent writes a turn
 * before each recall: README, "Recall in an agent's loop").
 *
 * Bounded by `maxBytes` (least recently used out; StoreOptions.knnCacheMiB). The bytes are the
 * process's own memory: ~220 MB for the probed cells of the 1M-episode bench file.
 *
 * A scan does not keep what it reads: it scores the chunk as read, and the chunk waits (up to
 * WAITING_BYTES) until keepWaiting runs, which the worker calls after it has answered. Keeping
 * writes memory the process has not touched yet, and on this machine's VM every new 4 KiB page
 * costs ~10 µs: ~0.4 ms a chunk, half of a first scan's time at 1M (README, "Vectors and ingest at
 * a million"). So no recall waits for it.
 */
import type { Database } from "bun:sqlite";
import { episodeRemovals, fileChanges, schemaVersion } from "../engine/file-state.ts";
import { align16, int8Distances, int8Kernel, type Kernel, widenedQueryBytes, writeWidenedQuery } from "./int8-scan.ts";
import { sameBytes } from "./same-bytes.ts";

/** Whether a scan found most of its chunks kept (at least 9 in 10): then it is several times faster than one that reads them. */
export const mostlyKept = (hits: number, misses: number): boolean => hits > 0 && misses * 10 <= hits + misses;

/** A chunk as its row gives it: which slots hold a vector, and their episode ids (int64). */
export type ChunkState = { chunkId: number; validity: Uint8Array; rowids: Uint8Array };

/** Reads a partition's chunk rows (by its keys): all of them, or the last one (the largest chunk id) alone. */
export type PartitionRows = { all(partition: (string | number)[]): ChunkState[]; last(partition: (string | number)[]): ChunkState | undefined };

/** A partition's rows as last read, its last chunk's row, and the file's state (fileChanges) they were last found current at. */
type HeldRows = { rows: ChunkState[]; last: ChunkState | undefined; current: string };

type Kept = { offset: number; validity: Uint8Array; rowids: Uint8Array };
type Waiting = { validity: Uint8Array; rowids: Uint8Array; vectors: Uint8Array };

/** The most bytes of chunks read and not kept yet that wait for keepWaiting (past it, a chunk read is not kept). */
const WAITING_BYTES = 16 << 20;

const rowBytes = (rows: ChunkState[]): number => rows.reduce((sum, row) => sum + row.validity.length + row.rowids.length, 0);

/** Whether a kept or waiting chunk is its row as it is now (which slots hold a vector, and whose). */
const isAsRead = (held: { validity: Uint8Array; rowids: Uint8Array }, chunk: ChunkState): boolean => sameBytes(held.validity, chunk.validity) && sameBytes(held.rowids, chunk.rowids);

/** Whether two rows are one chunk's, as it was (both absent: a partition without chunks). */
const sameChunk = (held: ChunkState | undefined, now: ChunkState | undefined): boolean =>
  held === undefined || now === undefined ? held === now : held.chunkId === now.chunkId && isAsRead(held, now);

export class KeptChunks {
  #kernel: Kernel | undefined;
  /** Chunk id to its slot, least recently used first (a Map keeps insertion order). */
  readonly #kept = new Map<number, Kept>();
  /** Chunks scans read, as they read them, oldest first, until keepWaiting keeps them. */
  readonly #waiting = new Map<number, Waiting>();
  #waitingBytes = 0;
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
  /** The file's removal token when the rows were held (undefined: the file has none). */
  #removals: string | undefined;
  /**
   * Each partition's chunk rows, and their bytes: a chunk's row is 1/32 of its vectors (int8[256]),
   * and the rows are let go when they pass a sixteenth of maxBytes.
   */
  readonly #rows = new Map<string, HeldRows>();
  #rowBytes = 0;
  /** Partitions whose rows were read (all of them), for tests: a write reads only those it changed. */
  rowReads = 0;
  /** Chunks read from SQLite (not kept, or changed since they were) and chunks scored where they were kept. */
  misses = 0;
  hits = 0;

  constructor(readonly maxBytes: number) {}

  /** Bytes of chunks held. */
  get bytes(): number {
    return this.#kept.size * this.#slotBytes;
  }

  /** Chunks held. */
  get chunks(): number {
    return this.#kept.size;
  }

  /** Lets every chunk go when the scan is of another table or dimension, or the file's schema changed (a table made again). */
  begin(db: Database, table: string, dims: number): void {
    const version = schemaVersion(db);
    const changes = fileChanges(db);
    const sameTable = table === this.#table && version === this.#schemaVersion && this.#rowBytes <= this.maxBytes / 16;
    if (changes !== this.#changes || !sameTable) {
      const removals = episodeRemovals(db);
      if (!sameTable || removals === undefined || removals !== this.#removals) {
        this.#rows.clear();
        this.#rowBytes = 0;
      }
      this.#removals = removals;
    }
    this.#changes = changes;
    if (table === this.#table && version === this.#schemaVersion && dims === this.#dims) return;
    this.#kept.clear();
    this.#waiting.clear();
    this.#waitingBytes = 0;
    this.#free = Array.from({ length: this.#slots }, (_, i) => this.#slots - 1 - i);
    // The query and distances before the slots take room by the dimension: slots are cut again.
    if (dims !== this.#dims) this.#chunkBytes = 0;
    [this.#table, this.#schemaVersion, this.#dims] = [table, version, dims];
  }

  /**
   * A partition's chunk rows: those held, while the file is as it was when they were found current
   * or its last chunk's row is as held; else read again.
   */
  chunksOf(partition: (string | number)[], read: PartitionRows): ChunkState[] {
    const key = partition.join("\u0000");
    const held = this.#rows.get(key);
    if (held && held.current !== this.#changes) {
      if (sameChunk(held.last, read.last(partition))) held.current = this.#changes;
    }
    if (held?.current === this.#changes) return held.rows;
    if (held) this.#rowBytes -= rowBytes(held.rows);
    const rows = read.all(partition);
    this.rowReads++;
    const last = rows.reduce<ChunkState | undefined>((found, row) => (found && found.chunkId > row.chunkId ? found : row), undefined);
    this.#rows.set(key, { rows, last, current: this.#changes });
    this.#rowBytes += rowBytes(rows);
    return rows;
  }

  /**
   * The chunk's distances to the query (a view of a kernel's memory: read it before the next
   * call): scored where it is kept, or else as read (`read`, unless it waits to be kept as it is
   * now), and then left to wait for keepWaiting.
   */
  distances(chunk: ChunkState, query: Int8Array, queryNorm: number, read: () => Uint8Array): Float32Array {
    const kept = this.#keptAsRead(chunk);
    if (kept) {
      // Used last: the least recently used come first.
      this.#kept.delete(chunk.chunkId);
      this.#kept.set(chunk.chunkId, kept);
      this.hits++;
      const dims = this.#dims;
      const count = this.#chunkBytes / dims;
      // The widened query first, the distances after it.
      const out = writeWidenedQuery(this.#kernel!, query);
      this.#kernel!.normedDistances(0, queryNorm, kept.offset, count, dims, kept.offset + this.#chunkBytes, out);
      return new Float32Array(this.#kernel!.memory.buffer, out, count);
    }
    this.misses++;
    const waiting = this.#waiting.get(chunk.chunkId);
    if (waiting && isAsRead(waiting, chunk)) return int8Distances(query, waiting.vectors, waiting.vectors.length / this.#dims);
    if (waiting) this.#unwait(chunk.chunkId, waiting);
    const vectors = read();
    if (this.#fits(vectors.length) && this.#waitingBytes + vectors.length <= Math.min(WAITING_BYTES, this.maxBytes)) {
      // The row's own arrays (bun:sqlite copies a blob out): the next scan's rows, while the file is unchanged, are these.
      this.#waiting.set(chunk.chunkId, { validity: chunk.validity, rowids: chunk.rowids, vectors });
      this.#waitingBytes += vectors.length;
    }
    return int8Distances(query, vectors, vectors.length / this.#dims);
  }

  /** Keeps the chunks that wait, oldest first, one at a time, until none is left or `stop` says to stop (a scan is waiting). */
  keepWaiting(stop: () => boolean): void {
    for (const [chunkId, waiting] of this.#waiting) {
      if (stop()) return;
      this.#unwait(chunkId, waiting);
      this.#keep(chunkId, waiting, this.#slotFor(waiting.vectors.length, true));
    }
  }

  /**
   * Keeps a chunk ahead of any scan (`read` unless it is kept as it is now), in room no kept chunk
   * holds: false when there is none left (nothing is let go for it).
   */
  prewarm(chunk: ChunkState, read: () => Uint8Array): boolean {
    if (this.#keptAsRead(chunk)) return true;
    const waiting = this.#waiting.get(chunk.chunkId);
    if (waiting) this.#unwait(chunk.chunkId, waiting);
    const vectors = waiting && isAsRead(waiting, chunk) ? waiting.vectors : read();
    // A chunk that can never be kept (no vectors, or larger than the bound) is passed over.
    if (!this.#fits(vectors.length)) return true;
    const offset = this.#slotFor(vectors.length, false);
    this.#keep(chunk.chunkId, { validity: chunk.validity, rowids: chunk.rowids, vectors }, offset);
    return offset !== undefined;
  }

  /** Bytes of chunks waiting to be kept. */
  get waitingBytes(): number {
    return this.#waitingBytes;
  }

  #unwait(chunkId: number, waiting: Waiting): void {
    this.#waiting.delete(chunkId);
    this.#waitingBytes -= waiting.vectors.length;
  }

  /** Whether a chunk of this many bytes can be kept at all: whole vectors, with their norms within maxBytes. */
  #fits(bytes: number): boolean {
    const count = bytes / this.#dims;
    return bytes > 0 && Number.isInteger(count) && bytes + count * 8 <= this.maxBytes;
  }

  /** Copies the chunk's vectors to the slot at `offset` (none: it is not kept) and computes their norms there. */
  #keep(chunkId: number, { validity, rowids, vectors }: Waiting, offset: number | undefined): void {
    if (offset === undefined) return;
    new Uint8Array(this.#kernel!.memory.buffer).set(vectors, offset);
    this.#kernel!.norms(offset, vectors.length / this.#dims, this.#dims, offset + vectors.length);
    this.#kept.set(chunkId, { offset, validity, rowids });
  }

  /** The chunk's slot when it is kept as it is now; a slot that holds it as it was is freed. */
  #keptAsRead(chunk: ChunkState): Kept | undefined {
    const kept = this.#kept.get(chunk.chunkId);
    if (kept && isAsRead(kept, chunk)) return kept;
    if (kept) this.#free.push(this.#release(chunk.chunkId, kept));
    return undefined;
  }

  #release(chunkId: number, kept: Kept): number {
    this.#kept.delete(chunkId);
    return (kept.offset - this.#slotsAt) / this.#slotBytes;
  }

  /** A slot's offset for a chunk of this many bytes: a free one, a new one, or (when `evict`) the least recently used one's. */
  #slotFor(bytes: number, evict: boolean): number | undefined {
    const count = bytes / this.#dims;
    if (!this.#fits(bytes)) return undefined;
    if (bytes !== this.#chunkBytes) {
      // A table's chunks all have one size: slots are cut again only when none is in use.
      if (this.#kept.size > 0) return undefined;
      this.#kernel ??= int8Kernel();
      [this.#chunkBytes, this.#slotBytes, this.#slotsAt, this.#slots, this.#free] = [bytes, bytes + count * 8, align16(widenedQueryBytes(this.#dims) + count * 4), 0, []];
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
    if (slot === undefined && evict) {
      const [oldest] = this.#kept;
      if (!oldest) return undefined;
      slot = this.#release(oldest[0], oldest[1]);
    }
    return slot === undefined ? undefined : this.#slotsAt + slot * this.#slotBytes;
  }
}
