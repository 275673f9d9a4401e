import { PlanningLimit, type Limits } from "./limits.ts";

/**
 * Every state a search has stored, packed as bitsets in one growing array, with a hash table
 * (open addressing) for duplicate detection and parent pointers for plan extraction.
 */
export class StateSpace {
  readonly words: number;
  readonly #limits: Limits;
  #data: Uint32Array;
  #table: Int32Array;
  #mask: number;
  parent: Int32Array;
  action: Int32Array;
  g: Float64Array;
  count = 0;

  constructor(words: number, limits: Limits, capacity = 1024) {
    this.words = words;
    this.#limits = limits;
    this.#data = new Uint32Array(capacity * words);
    this.#table = new Int32Array(capacity * 2).fill(-1);
    this.#mask = capacity * 2 - 1;
    this.parent = new Int32Array(capacity);
    this.action = new Int32Array(capacity);
    this.g = new Float64Array(capacity);
  }

  /** Bytes held by the stored states and their bookkeeping. */
  get bytes(): number {
    return this.#data.byteLength + this.#table.byteLength + this.parent.byteLength * 2 + this.g.byteLength;
  }

  state(id: number): Uint32Array {
    return this.#data.subarray(id * this.words, (id + 1) * this.words);
  }

  #hash(state: Uint32Array): number {
    let h = 0x811c9dc5;
    for (let i = 0; i < state.length; i++) h = Math.imul(h ^ state[i]!, 0x01000193) ^ (h >>> 15);
    return Math.imul(h ^ (h >>> 13), 0x5bd1e995) ^ (h >>> 16);
  }

  #equals(id: number, state: Uint32Array): boolean {
    const base = id * this.words;
    for (let i = 0; i < this.words; i++) if (this.#data[base + i] !== state[i]) return false;
    return true;
  }

  /** The id of an already stored equal state, or -1. */
  find(state: Uint32Array): number {
    for (let slot = this.#hash(state) & this.#mask; ; slot = (slot + 1) & this.#mask) {
      const id = this.#table[slot]!;
      if (id < 0) return -1;
      if (this.#equals(id, state)) return id;
    }
  }

  /** Stores a state not seen before and returns its id, or returns -(id + 1) of the equal stored state. */
  insert(state: Uint32Array, parent: number, action: number, g: number): number {
    let slot = this.#hash(state) & this.#mask;
    for (; ; slot = (slot + 1) & this.#mask) {
      const id = this.#table[slot]!;
      if (id < 0) break;
      if (this.#equals(id, state)) return -(id + 1);
    }
    if (this.count >= this.#limits.maxNodes) throw new PlanningLimit("node limit", `${this.#limits.maxNodes} states stored`);
    if (this.count === this.parent.length) {
      this.#grow();
      return this.insert(state, parent, action, g);
    }
    const id = this.count++;
    this.#data.set(state, id * this.words);
    this.#table[slot] = id;
    this.parent[id] = parent;
    this.action[id] = action;
    this.g[id] = g;
    return id;
  }

  #grow(): void {
    const capacity = this.parent.length * 2;
    const bytesAfter = capacity * (this.words * 4 + 4 * 2 + 4 + 8 + 8);
    if (bytesAfter > this.#limits.maxMemoryBytes) throw new PlanningLimit("memory limit", `${this.count} states would need ${Math.round(bytesAfter / 2 ** 20)} MB`);
    const data = new Uint32Array(capacity * this.words);
    data.set(this.#data);
    this.#data = data;
    const grow = <T extends Int32Array | Float64Array>(old: T, make: (n: number) => T): T => {
      const next = make(capacity);
      next.set(old);
      return next;
    };
    this.parent = grow(this.parent, (n) => new Int32Array(n));
    this.action = grow(this.action, (n) => new Int32Array(n));
    this.g = grow(this.g, (n) => new Float64Array(n));
    this.#table = new Int32Array(capacity * 2).fill(-1);
    this.#mask = capacity * 2 - 1;
    for (let id = 0; id < this.count; id++) {
      let slot = this.#hash(this.state(id)) & this.#mask;
      while (this.#table[slot]! >= 0) slot = (slot + 1) & this.#mask;
      this.#table[slot] = id;
    }
  }

  /** The actions from the initial state (id 0) to `id`. */
  path(id: number): number[] {
    const actions: number[] = [];
    for (let at = id; this.parent[at]! >= 0; at = this.parent[at]!) actions.push(this.action[at]!);
    return actions.reverse();
  }

  /** Re-parents a stored state reached more cheaply (weighted A*). */
  reparent(id: number, parent: number, action: number, g: number): void {
    this.parent[id] = parent;
    this.action[id] = action;
    this.g[id] = g;
  }
}
