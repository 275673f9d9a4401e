/**
 * The static table's words as a space of their own, to find the words nearest a query's word: a
 * question that names its evidence by category ("What activities does Melanie partake in?") shares
 * no word with the turns that hold it ("signed up for a pottery class", "went camping"), but a
 * category's members are often near it in the static space ("countries": spain, sweden; "pets":
 * dog, cat). Vectors are centred on the list's mean before the cosine: raw static vectors share a
 * common direction that makes every frequent word look near every other ("the", "and"). Of a table
 * projected on its principal directions (the shipped one: 256 of the model's 512), only the leading
 * 96 are kept: they find the same neighbours at a quarter of the cost. A scan scores every word
 * first on int8 codes of the rows, three query words in one pass of the static KNN's WebAssembly
 * SIMD kernel (int8-scan.ts), then exactly, as before, only the words whose int8 cosine could reach
 * the floor: the same neighbours and similarities at a fraction of the time (30,000 words, three
 * query words: ~1 ms, was ~7 in JavaScript).
 * Pure apart from the per-embedder cache.
 */
import type { StaticEmbedder } from "../embed/static/static-embedder.ts";
import { LOCAL_MODEL_DIMS } from "../embed/local-model-version.ts";
import { isStopWord } from "../retrieval/query-text.ts";
import { int8Dots } from "../episodic/int8-scan.ts";

export type WordSpace = {
  words: string[];
  rowOf: Map<string, number>;
  dims: number;
  /** Centred, unit rows, one per word, contiguous. */
  rows: Float32Array;
  /** Each row as int8 (scaled by its largest component to ±127), padded with zeros to `codeDims`, for the SIMD prefilter. */
  codes: Int8Array;
  codeDims: number;
  /** The largest angle (radians) between a row and its code: bounds how far an int8 cosine is from the row's. */
  codeAngle: number;
  /** Each code's norm (the kernel gives dot products). */
  codeNorms: Float64Array;
  /** Each word's nearest words found so far, and the floor and length they were found with. */
  neighbours: Map<string, KeptNeighbours>;
};

type KeptNeighbours = { floor: number; limit: number; list: NearWord[] };

export type NearWord = { word: string; similarity: number };

/** The static table's leading principal directions kept in the space. */
export const SPACE_DIMS = 96;
/** Neighbours kept per word, and words whose neighbours are kept (then all are forgotten). */
const NEIGHBOURS_KEPT = 32;
const CACHED_WORDS = 10_000;

/**
 * The space of the given words on the first `dims` dimensions (default: all) of their vectors,
 * which `read` writes, one word at a time, into a buffer of `width` (the vectors' length).
 */
export function createWordSpace(words: string[], read: (word: string, into: Float32Array) => void, width: number, dims = Infinity): WordSpace {
  dims = Math.min(dims, width);
  const rows = new Float32Array(words.length * dims);
  const buffer = new Float32Array(width);
  const mean = new Float64Array(dims);
  words.forEach((word, i) => {
    read(word, buffer);
    for (let k = 0; k < dims; k++) mean[k]! += buffer[k]! / words.length;
    rows.set(buffer.subarray(0, dims), i * dims);
  });
  for (let at = 0; at < rows.length; at += dims) {
    let norm = 0;
    for (let k = 0; k < dims; k++) {
      rows[at + k]! -= mean[k]!;
      norm += rows[at + k]! * rows[at + k]!;
    }
    norm = Math.sqrt(norm) || 1;
    for (let k = 0; k < dims; k++) rows[at + k]! /= norm;
  }
  return { words, rowOf: new Map(words.map((word, i) => [word, i])), dims, rows, ...encodeRows(rows, dims), neighbours: new Map() };
}

/** The int8 kernel reads 16 dimensions at a time; zeros added to both sides change no dot product or norm. */
const KERNEL_LANES = 16;

/**
 * Each row as int8 codes (its own scale: a cosine ignores a vector's length) and the largest angle
 * between a row and its code, measured, not estimated: sin(angle) <= |code / scale - row| / |row|.
 */
export function encodeRows(rows: Float32Array, dims: number): { codes: Int8Array; codeDims: number; codeNorms: Float64Array; codeAngle: number } {
  const count = rows.length / dims;
  const codeDims = Math.ceil(dims / KERNEL_LANES) * KERNEL_LANES;
  const codes = new Int8Array(count * codeDims);
  const codeNorms = new Float64Array(count);
  let codeAngle = 0;
  for (let i = 0; i < count; i++) {
    const at = i * dims;
    let largest = 0;
    let norm = 0;
    for (let k = 0; k < dims; k++) {
      const value = rows[at + k]!;
      if (value > largest) largest = value;
      else if (-value > largest) largest = -value;
      norm += value * value;
    }
    if (largest === 0) continue; // a zero row stays zero codes: the kernel gives it no cosine (NaN), and the exact pass scores it
    const scale = 127 / largest;
    let error = 0;
    let codeNorm = 0;
    for (let k = 0; k < dims; k++) {
      // floor(x + 0.5): JavaScriptCore's Math.round cost twice the whole encoding here; any rounding will do, the error is measured.
      const code = Math.floor(rows[at + k]! * scale + 0.5);
      codes[i * codeDims + k] = code;
      codeNorm += code * code;
      const off = code / scale - rows[at + k]!;
      error += off * off;
    }
    codeNorms[i] = Math.sqrt(codeNorm);
    const sine = Math.sqrt(error / norm);
    codeAngle = Math.max(codeAngle, sine >= 1 ? Math.PI : Math.asin(sine));
  }
  return { codes, codeDims, codeNorms, codeAngle };
}

/** Slack for float rounding: rows of norm 1 ± 1e-7, the int8 cosine's division and the floor's cosine in double. */
const ROUNDING = 1e-4;

/**
 * The int8 cosine a row must reach for its exact score to possibly reach `floor`: the angle
 * between two rows is within both codes' angles of the angle between their codes (the triangle
 * inequality on the sphere), so a row at cosine `floor` has codes at most 2 x codeAngle further apart.
 */
export function prefilterFloor(floor: number, codeAngle: number): number {
  const lowest = floor - ROUNDING;
  if (lowest <= -1) return -Infinity;
  const angle = Math.acos(Math.min(1, lowest)) + 2 * codeAngle;
  return angle >= Math.PI ? -Infinity : Math.cos(angle) - ROUNDING;
}

/**
 * The words nearest each word of the space (cosine at least `floor`), best first, at most `count`;
 * none for a word outside the space (a vector made of model pieces is no guide to a word's
 * neighbours). Each word's list is kept (queries repeat their words), up to NEIGHBOURS_KEPT; the
 * words not kept yet are scanned three at a time (one pass over the space for three).
 */
export function nearestWordsOfEach(space: WordSpace, words: readonly string[], options: { count: number; floor: number }): NearWord[][] {
  const limit = Math.max(options.count, NEIGHBOURS_KEPT);
  const found = new Map<string, KeptNeighbours>();
  for (const word of words) {
    const kept = space.neighbours.get(word);
    if (kept && kept.floor <= options.floor && (kept.list.length >= options.count || kept.list.length < kept.limit)) found.set(word, kept);
  }
  const stale = [...new Set(words)].filter((word) => space.rowOf.has(word) && !found.has(word));
  for (let at = 0; at < stale.length; at += 3) {
    const batch = stale.slice(at, at + 3);
    scanNearest(space, batch.map((word) => space.rowOf.get(word)!), options.floor, limit).forEach((list, j) => {
      const kept = { floor: options.floor, limit, list };
      if (space.neighbours.size >= CACHED_WORDS) space.neighbours.clear();
      space.neighbours.set(batch[j]!, kept);
      found.set(batch[j]!, kept);
    });
  }
  return words.map((word) => (found.get(word)?.list ?? []).filter((near) => near.similarity >= options.floor).slice(0, options.count));
}

/**
 * For each of up to three rows, every word whose exact score reaches the floor, best first, at most
 * `limit`: the int8 prefilter's candidates (one kernel pass for all the rows), scored exactly.
 */
function scanNearest(space: WordSpace, asked: number[], floor: number, limit: number): NearWord[][] {
  const { dims, rows, codes, codeDims, codeNorms } = space;
  const count = space.words.length;
  const dots = int8Dots(
    asked.map((row) => codes.subarray(row * codeDims, (row + 1) * codeDims)),
    new Uint8Array(codes.buffer, codes.byteOffset, count * codeDims),
    count,
  );
  const least = prefilterFloor(floor, space.codeAngle);
  return asked.map((row, j) => {
    const from = row * dims;
    const rowNorm = codeNorms[row]!;
    const found: NearWord[] = [];
    for (let i = 0; i < count; i++) {
      // An int8 cosine (dot / both norms) under `least` cannot reach the floor; a zero code (NaN, 0) is scored.
      if (i === row || dots[3 * i + j]! < least * codeNorms[i]! * rowNorm) continue;
      const at = i * dims;
      let score = 0;
      for (let k = 0; k < dims; k++) score += rows[at + k]! * rows[from + k]!;
      if (score >= floor) found.push({ word: space.words[i]!, similarity: score });
    }
    return found.sort((a, b) => b.similarity - a.similarity || a.word.localeCompare(b.word)).slice(0, limit);
  });
}

/** The words worth a place in the space: letters only, three or more, not stop words, lower-cased, once. */
export const spaceWords = (words: readonly string[]) => [...new Set(words.map((word) => word.toLowerCase()))].filter((word) => /^[a-z]{3,}$/.test(word) && !isStopWord(word));

const spaces = new WeakMap<StaticEmbedder, WordSpace>();

/** The word space of a static embedder's table, built on first use and kept. */
export function wordSpaceOf(embedder: StaticEmbedder): WordSpace {
  let space = spaces.get(embedder);
  if (!space) {
    const words = spaceWords(embedder.words);
    // A table of the model's full width is not projected: its leading dimensions are no better than others.
    space = createWordSpace(words, (word, into) => embedder.wordVector(word, into), embedder.dims, embedder.dims < LOCAL_MODEL_DIMS ? SPACE_DIMS : Infinity);
    spaces.set(embedder, space);
  }
  return space;
}

/** The longest start or end of a word (5 letters or more, 2 or more left over) that passes `known`: "mentorship" -> "mentors", "destress" -> "stress". */
export function knownPart(word: string, known: (part: string) => boolean): string | undefined {
  for (let length = word.length - 2; length >= 5; length--) {
    for (const part of [word.slice(0, length), word.slice(word.length - length)]) if (known(part)) return part;
  }
  return undefined;
}
