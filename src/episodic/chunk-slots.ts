/**
 * Which vec0 chunks the int8 scan (int8-scan.ts) keeps in its WebAssembly memory, and where: a
 * fixed number of equal slots, least recently used first out. A chunk is kept with the validity
 * bitmap and rowids it had when read; a later scan reads those two again (a few KB per chunk, where
 * the vectors are 128 KB) and uses the kept vectors only if both are byte for byte the same. vec0
 * changes a chunk's validity with every vector it adds or deletes there, and an episode id is never
 * reused (AUTOINCREMENT), and a static episode vector is written once, so an unchanged slot of an
 * unchanged chunk holds an unchanged vector. Keys name the connection and the schema's version
 * too (a re-embed drops and recreates the tables, whose chunk ids start again).
 */
export type KeptChunk = {
  /** The slots holding its vectors, in order; each holds up to the slot's share of them. */
  slots: number[];
  /** Its vectors (live or not), as read. */
  count: number;
  validity: Uint8Array;
  rowids: Uint8Array;
};

/** The same bytes (the very same array when the rows were kept from an unchanged file: no compare then). */
const same = (a: Uint8Array, b: Uint8Array) => a === b || Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

export class ChunkSlots {
  /** In use order: the first is the least recently used. */
  private readonly kept = new Map<string, KeptChunk>();
  private readonly free: number[];

  constructor(readonly slotCount: number) {
    this.free = Array.from({ length: slotCount }, (_, i) => slotCount - 1 - i);
  }

  /** The chunk kept under key if it still has this validity and these rowids (now the most recently used); a stale one is dropped. */
  find(key: string, validity: Uint8Array, rowids: Uint8Array): KeptChunk | undefined {
    const chunk = this.kept.get(key);
    if (!chunk) return undefined;
    this.kept.delete(key);
    if (!same(chunk.validity, validity) || !same(chunk.rowids, rowids)) {
      this.free.push(...chunk.slots);
      return undefined;
    }
    this.kept.set(key, chunk);
    return chunk;
  }

  /** Slots for a chunk needing `slots` of them, the least recently used chunks giving theirs up; undefined if it needs more than there are. */
  keep(key: string, slots: number, count: number, validity: Uint8Array, rowids: Uint8Array): KeptChunk | undefined {
    if (slots > this.slotCount) return undefined;
    const old = this.kept.get(key);
    if (old) {
      this.kept.delete(key);
      this.free.push(...old.slots);
    }
    while (this.free.length < slots) {
      const [oldest, chunk] = this.kept.entries().next().value!;
      this.kept.delete(oldest);
      this.free.push(...chunk.slots);
    }
    const chunk = { slots: this.free.splice(this.free.length - slots, slots), count, validity, rowids };
    this.kept.set(key, chunk);
    return chunk;
  }

  /** How many chunks are kept. */
  get size(): number {
    return this.kept.size;
  }
}
