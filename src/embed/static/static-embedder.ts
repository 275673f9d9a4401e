/**
 * The static embedder: a text's vector is the weighted mean of its words' rows in the distilled
 * table (a word outside the list: the mean of its model pieces' rows), weight a / (a + p(w)) with
 * a = 1e-3 and p(w) from the word's Zipf rank, L2-normalised. Synchronous (embedSync), so ingest
 * can embed inside its write transaction; tens of thousands of turns per second on one thread.
 */
import { assertEmbeddableTexts, type Embedder, type EmbedderSpec } from "../embedder.ts";
import { createPieceTokenizer, type PieceTokenizer } from "./piece-tokenizer.ts";
import type { StaticTable } from "./table.ts";
import { forEachWord } from "./words.ts";

export type StaticEmbedder = Embedder & {
  readonly kind: "static";
  /** The table's word list (as written), most frequent first: the words it has rows of. */
  readonly words: readonly string[];
  embedSync(texts: string[]): Float32Array[];
  /**
   * A list word's vector (case aside), as embedSync gives the one-word text, read straight from its
   * row into `into` (no scanning, no caching, no allocation: the router reads all 30,000); false
   * for a word outside the list.
   */
  wordVector(word: string, into: Float32Array): boolean;
};

/** Smooth inverse frequency (Arora et al. 2017): frequent words count for little. */
const A = 1e-3;
/**
 * Words (as written) whose rows are remembered: text repeats its words, and names and jargon need
 * the tokenizer. 50,000 covers a conversation's vocabulary; each entry holds two typed arrays, and
 * at 200,000 a long ingest of text full of distinct tokens (ids, numbers) spent about 120 MB more RSS.
 */
const CONTRIBUTION_CACHE_LIMIT = 50_000;

/** p(rank) = 1 / (rank * H_n): Zipf's law over a list of n words. */
export function zipfWeights(ranks: number[], listSize: number): { weights: Float32Array; unknown: number } {
  let harmonic = 0;
  for (let r = 1; r <= listSize; r++) harmonic += 1 / r;
  const weight = (rank: number) => A / (A + 1 / (rank * harmonic));
  // Loops, not Float32Array.from with a mapper (~10 ms over 30,000 ranks in a fresh process).
  const weights = new Float32Array(ranks.length);
  for (let i = 0; i < ranks.length; i++) weights[i] = weight(ranks[i]!);
  return { weights, unknown: weight(listSize + 1) };
}

export function createStaticEmbedder(table: StaticTable, spec?: EmbedderSpec): StaticEmbedder {
  const { dims, pieceRows, values, scales } = table;
  const rowOf = new Map<string, number>();
  table.words.forEach((word, i) => {
    const key = word.toLowerCase();
    if (!rowOf.has(key)) rowOf.set(key, pieceRows + i);
  });
  const { weights, unknown } = zipfWeights(table.ranks, table.listSize);
  // Scale and weight folded into one factor per word row.
  const wordFactor = new Float32Array(weights.length);
  for (let i = 0; i < weights.length; i++) wordFactor[i] = weights[i]! * scales[pieceRows + i]!;
  // Built on the first word outside the list: a short query often has none, and a fresh CLI process
  // would spend tens of ms on it for nothing.
  let tokenizer: PieceTokenizer | undefined;
  /** What a word (as written) adds: its rows and their factors (scale x weight). */
  type Contribution = { rows: Int32Array; factors: Float32Array };
  let contributions = new Map<string, Contribution>();

  /** A list word's row; else the mean of its pieces' rows (those the table has) at the unknown-word weight. */
  function contributionOf(word: string, weight: number): Contribution {
    const row = rowOf.get(word.toLowerCase());
    if (row !== undefined) return { rows: Int32Array.of(row), factors: Float32Array.of(wordFactor[row - pieceRows]!) };
    tokenizer ??= createPieceTokenizer(table.pieces);
    const ids = Int32Array.from(tokenizer.encode(word).filter((id) => id < pieceRows));
    return { rows: ids, factors: Float32Array.from(ids, (id) => (weight * scales[id]!) / ids.length) };
  }

  function cachedContribution(word: string): Contribution {
    let found = contributions.get(word);
    if (!found) {
      found = contributionOf(word, unknown);
      if (contributions.size >= CONTRIBUTION_CACHE_LIMIT) contributions = new Map();
      contributions.set(word, found);
    }
    return found;
  }

  function add(sum: Float32Array, { rows, factors }: Contribution): boolean {
    for (let k = 0; k < rows.length; k++) {
      const at = rows[k]! * dims;
      const factor = factors[k]!;
      for (let i = 0; i < dims; i++) sum[i]! += values[at + i]! * factor;
    }
    return rows.length > 0;
  }

  function embedText(text: string): Float32Array {
    const sum = new Float32Array(dims);
    let used = false;
    forEachWord(/[^\x00-\x7f]/.test(text) ? text.normalize("NFKC") : text, (word) => {
      used = add(sum, cachedContribution(word)) || used;
    });
    // Punctuation or symbols only: the pieces of the whole text; failing that, a fixed direction.
    if (!used && !add(sum, contributionOf(text.trim(), 1))) sum[0] = 1;
    let norm = 0;
    for (let i = 0; i < dims; i++) norm += sum[i]! * sum[i]!;
    norm = Math.sqrt(norm) || 1;
    for (let i = 0; i < dims; i++) sum[i]! /= norm;
    return sum;
  }

  function wordVector(word: string, into: Float32Array): boolean {
    const row = rowOf.get(word.toLowerCase());
    if (row === undefined) return false;
    // One row: its scale and weight are one positive factor, which the unit length removes.
    let norm = 0;
    for (let i = 0; i < dims; i++) {
      into[i] = values[row * dims + i]!;
      norm += into[i]! * into[i]!;
    }
    norm = Math.sqrt(norm) || 1;
    for (let i = 0; i < dims; i++) into[i]! /= norm;
    return true;
  }

  function embedSync(texts: string[]): Float32Array[] {
    assertEmbeddableTexts(texts);
    return texts.map(embedText);
  }

  return { kind: "static", modelVersion: table.modelVersion, dims, spec, words: table.words, embedSync, wordVector, embed: async (texts) => embedSync(texts) };
}

/** A unit vector as int8 for storage (cosine distance ignores the per-vector scale). */
export function toInt8Vector(vector: Float32Array): Int8Array {
  let max = 0;
  for (let i = 0; i < vector.length; i++) max = Math.max(max, Math.abs(vector[i]!));
  const scale = max > 0 ? 127 / max : 0;
  const out = new Int8Array(vector.length);
  for (let i = 0; i < vector.length; i++) out[i] = Math.round(vector[i]! * scale);
  return out;
}
