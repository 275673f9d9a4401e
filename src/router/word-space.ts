/**
 * The static table's words as a space of their own, to find the words nearest a query's word: a
 * question that names its evidence by category ("What activities does Melanie partake in?") shares
 * no word with the turns that hold it ("signed up for a pottery class", "went camping"), but a
 * category's members are often near it in the static space ("countries": spain, sweden; "pets":
 * dog, cat). Vectors are centred on the list's mean before the cosine: raw static vectors share a
 * common direction that makes every frequent word look near every other ("the", "and"). Of a table
 * projected on its principal directions (the shipped one: 256 of the model's 512), only the leading
 * 96 are kept: they find the same neighbours at a quarter of the cost (about 1 ms per word over
 * 30,000). Pure apart from the per-embedder cache.
 */
import type { StaticEmbedder } from "../embed/static/static-embedder.ts";
import { LOCAL_MODEL_DIMS } from "../embed/local-model-version.ts";
import { isStopWord } from "../retrieval/query-text.ts";

export type WordSpace = {
  words: string[];
  rowOf: Map<string, number>;
  dims: number;
  /** Centred, unit rows, one per word, contiguous. */
  rows: Float32Array;
  /** Each word's nearest words found so far, and the floor and length they were found with. */
  neighbours: Map<string, { floor: number; limit: number; list: NearWord[] }>;
};

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
  return { words, rowOf: new Map(words.map((word, i) => [word, i])), dims, rows, neighbours: new Map() };
}

/**
 * The words nearest a word of the space (cosine at least `floor`), best first, at most `count`;
 * none for a word outside the space (a vector made of model pieces is no guide to a word's
 * neighbours). Each word's list is kept (queries repeat their words), up to NEIGHBOURS_KEPT.
 */
export function nearestWords(space: WordSpace, word: string, options: { count: number; floor: number }): NearWord[] {
  const row = space.rowOf.get(word);
  if (row === undefined) return [];
  let kept = space.neighbours.get(word);
  if (!kept || kept.floor > options.floor || (kept.list.length < options.count && kept.list.length === kept.limit)) {
    kept = { floor: options.floor, limit: Math.max(options.count, NEIGHBOURS_KEPT), list: scanNearest(space, row, options.floor, Math.max(options.count, NEIGHBOURS_KEPT)) };
    if (space.neighbours.size >= CACHED_WORDS) space.neighbours.clear();
    space.neighbours.set(word, kept);
  }
  return kept.list.filter((near) => near.similarity >= options.floor).slice(0, options.count);
}

function scanNearest(space: WordSpace, row: number, floor: number, limit: number): NearWord[] {
  const { dims, rows } = space;
  const from = row * dims;
  const found: NearWord[] = [];
  for (let i = 0; i < space.words.length; i++) {
    if (i === row) continue;
    const at = i * dims;
    let score = 0;
    for (let k = 0; k < dims; k++) score += rows[at + k]! * rows[from + k]!;
    if (score >= floor) found.push({ word: space.words[i]!, similarity: score });
  }
  return found.sort((a, b) => b.similarity - a.similarity || a.word.localeCompare(b.word)).slice(0, limit);
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
