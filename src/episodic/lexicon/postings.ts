/**
 * A term's postings in one block of the episode lexicon, as bytes: per episode (ascending ids) the
 * id's distance from the previous one (from the block's first id for the first), the term's count
 * in what was said, its count in the turn before, and the episode's length in terms, each an
 * unsigned LEB128 varint (one byte each, mostly).
 */

export type Posting = { id: number; content: number; context: number; length: number };

// The encoder's output, grown as needed and copied out per term (no array of numbers per posting).
let out = new Uint8Array(1 << 16);
let written = 0;

/** Appends v as an unsigned LEB128 varint. */
function pushVarint(v: number): void {
  if (written + 8 > out.length) {
    const grown = new Uint8Array(out.length * 2);
    grown.set(out);
    out = grown;
  }
  while (v >= 0x80) {
    out[written++] = (v & 0x7f) | 0x80;
    v = Math.floor(v / 128);
  }
  out[written++] = v;
}

/**
 * Encodes postings given flat (id, content, context, length per episode; ascending ids, none below
 * base). The bytes are a view of the encoder's buffer, valid until the next encoding: bind or copy
 * them at once (an ingest encodes thousands of terms per block; a copy each was garbage each).
 */
export function encodePostings(flat: ArrayLike<number>, base: number): Uint8Array {
  written = 0;
  let previous = base;
  for (let i = 0; i < flat.length; i += 4) {
    pushVarint(flat[i]! - previous);
    pushVarint(flat[i + 1]!);
    pushVarint(flat[i + 2]!);
    pushVarint(flat[i + 3]!);
    previous = flat[i]!;
  }
  return out.subarray(0, written);
}

/** Postings as encodePostings takes them. */
export const flattenPostings = (postings: Posting[]): number[] => postings.flatMap((p) => [p.id, p.content, p.context, p.length]);

// The decoders' read position: one module-level cursor instead of an object per read (the
// ranking's inner loop decodes ~4 varints a posting, a few hundred thousand postings a query).
let cursor = 0;

/** The varint at the cursor, moving past it. */
function nextVarint(bytes: Uint8Array): number {
  let b = bytes[cursor++]!;
  if (b < 0x80) return b;
  let value = b & 0x7f;
  for (let shift = 128; ; shift *= 128) {
    b = bytes[cursor++]!;
    value += (b & 0x7f) * shift;
    if (b < 0x80) return value;
  }
}

/** The last id of encoded postings. */
export function lastPostingId(bytes: Uint8Array, base: number): number {
  cursor = 0;
  let id = base;
  while (cursor < bytes.length) {
    id += nextVarint(bytes);
    nextVarint(bytes);
    nextVarint(bytes);
    nextVarint(bytes);
  }
  return id;
}

/**
 * The postings of consecutive blocks as one block's (each part's ids above the previous part's):
 * the bytes are copied, only each part's first distance is written again, from the previous
 * part's last id instead of its own block's first id. A view, as encodePostings returns.
 */
export function concatPostings(parts: { bytes: Uint8Array; base: number }[], base: number): Uint8Array {
  written = 0;
  let previous = base;
  for (const part of parts) {
    cursor = 0;
    const firstId = part.base + nextVarint(part.bytes);
    pushVarint(firstId - previous);
    const rest = part.bytes.subarray(cursor);
    if (written + rest.length > out.length) {
      const grown = new Uint8Array(Math.max(out.length * 2, written + rest.length + 8));
      grown.set(out.subarray(0, written));
      out = grown;
    }
    out.set(rest, written);
    written += rest.length;
    previous = lastPostingId(part.bytes, part.base);
  }
  return out.subarray(0, written);
}

export function decodePostings(bytes: Uint8Array, base: number): Posting[] {
  const postings: Posting[] = [];
  cursor = 0;
  let id = base;
  while (cursor < bytes.length) {
    id += nextVarint(bytes);
    const content = nextVarint(bytes);
    const context = nextVarint(bytes);
    postings.push({ id, content, context, length: nextVarint(bytes) });
  }
  return postings;
}

/** What one term adds per posting: weight * f / (f + norm + lengthFactor * length), f its weighted count. */
export type TermWeights = { weight: number; norm: number; lengthFactor: number; contextWeight: number };

/** A term's BM25 part for one episode (f its weighted count); recordPostings inlines it in its loop. */
export const bm25Part = (frequency: number, length: number, weights: TermWeights): number => (weights.weight * frequency) / (frequency + weights.norm + weights.lengthFactor * length);

/**
 * Terms' parts per episode, one run per term (ascending slots: an episode's id less `first`),
 * `recorded` of them in `slots` and `parts`: the ranking sums them (sums.ts) and copies them for
 * the candidates, in the query's term order.
 */
export type Runs = { first: number; slots: Int32Array; parts: Float64Array; recorded: number };

/** Records a term's BM25 part for every episode of its postings in one block (~3 ns a posting). */
export function recordPostings(bytes: Uint8Array, base: number, weights: TermWeights, into: Runs): void {
  const { weight, norm, lengthFactor, contextWeight } = weights;
  const { first, slots, parts } = into;
  let recorded = into.recorded;
  cursor = 0;
  let id = base;
  const end = bytes.length;
  while (cursor < end) {
    id += nextVarint(bytes);
    const frequency = nextVarint(bytes) + contextWeight * nextVarint(bytes);
    const length = nextVarint(bytes);
    if (frequency === 0) continue;
    // bm25Part, inlined: this loop runs per posting of every term scored in full.
    slots[recorded] = id - first;
    parts[recorded++] = (weight * frequency) / (frequency + norm + lengthFactor * length);
  }
  into.recorded = recorded;
}

/**
 * A term's parts for the candidates (slots, ascending) from index `from` on: for each posting whose
 * slot is a candidate's, its part goes to `table[c * stride + column]`, c the candidate's index;
 * the other postings' counts are skipped undecoded. Postings and candidates both ascend, so they
 * are walked side by side (a lookup by slot read a random line of a 4 MB table per posting, ~30% of
 * a heavy query's BM25 at 1M), and decoding stops past the last candidate. Returns the index of the
 * first candidate past the postings read: where the term's next block starts.
 */
export function scoreCandidates(bytes: Uint8Array, base: number, weights: TermWeights, first: number, candidates: Int32Array, from: number, table: Float64Array, stride: number, column: number): number {
  const { contextWeight } = weights;
  const count = candidates.length;
  cursor = 0;
  let id = base;
  let c = from;
  const end = bytes.length;
  while (cursor < end && c < count) {
    id += nextVarint(bytes);
    const slot = id - first;
    while (c < count && candidates[c]! < slot) c++;
    if (candidates[c] !== slot) {
      // Three varints, their last bytes below 0x80.
      for (let left = 3; left > 0; ) if (bytes[cursor++]! < 0x80) left--;
      continue;
    }
    const frequency = nextVarint(bytes) + contextWeight * nextVarint(bytes);
    const length = nextVarint(bytes);
    if (frequency !== 0) table[c * stride + column] = bm25Part(frequency, length, weights);
    c++;
  }
  return c;
}

/** The index of the first of the ascending values[from, to) at or above `value` (`to` when none is). */
export function lowerBound(values: Int32Array, value: number, from = 0, to = values.length): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (values[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
