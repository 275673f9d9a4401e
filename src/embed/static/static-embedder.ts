/**
 * The static embedder: a text's vector is the weighted mean of its words' rows in the distilled
 * table (a word outside the list: the mean of its model pieces' rows), weight a / (a + p(w)) with
 * a = 1e-3 and p(w) from the word's Zipf rank, L2-normalised. Synchronous (embedSync), so ingest
 * can embed inside its write transaction; tens of thousands of turns per second on one thread.
 */
import { assertEmbeddableTexts, type Embedder, type EmbedderSpec } from "../embedder.ts";
import { createPieceTokenizer } from "./piece-tokenizer.ts";
import type { StaticTable } from "./table.ts";
import { forEachWord } from "./words.ts";

export type StaticEmbedder = Embedder & {
  readonly kind: "static";
  embedSync(texts: string[]): Float32Array[];
};

/** Smooth inverse frequency (Arora et al. 2017): frequent words count for little. */
const A = 1e-3;
/** Unknown words' piece decompositions kept (names and jargon repeat within a conversation). */
const PIECE_CACHE_LIMIT = 100_000;

/** p(rank) = 1 / (rank * H_n): Zipf's law over a list of n words. */
export function zipfWeights(ranks: number[], listSize: number): { weights: Float32Array; unknown: number } {
  let harmonic = 0;
  for (let r = 1; r <= listSize; r++) harmonic += 1 / r;
  const weight = (rank: number) => A / (A + 1 / (rank * harmonic));
  return { weights: Float32Array.from(ranks, weight), unknown: weight(listSize + 1) };
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
  const wordFactor = Float32Array.from(weights, (w, i) => w * scales[pieceRows + i]!);
  const tokenizer = createPieceTokenizer(table.pieces);
  let pieceCache = new Map<string, Int32Array>();

  /** Piece ids of a text that have rows (a smaller table may lack some). */
  function piecesOf(text: string): Int32Array {
    let ids = pieceCache.get(text);
    if (!ids) {
      ids = Int32Array.from(tokenizer.encode(text).filter((id) => id < pieceRows));
      if (pieceCache.size >= PIECE_CACHE_LIMIT) pieceCache = new Map();
      pieceCache.set(text, ids);
    }
    return ids;
  }

  function addRow(sum: Float32Array, row: number, factor: number): void {
    const at = row * dims;
    for (let i = 0; i < dims; i++) sum[i]! += values[at + i]! * factor;
  }

  /** Adds the mean of the pieces' rows times weight; false when no piece has a row. */
  function addPieces(sum: Float32Array, text: string, weight: number): boolean {
    const ids = piecesOf(text);
    for (const id of ids) addRow(sum, id, (weight * scales[id]!) / ids.length);
    return ids.length > 0;
  }

  function embedText(text: string): Float32Array {
    const sum = new Float32Array(dims);
    let used = false;
    forEachWord(/[^\x00-\x7f]/.test(text) ? text.normalize("NFKC") : text, (word) => {
      const row = rowOf.get(word.toLowerCase());
      if (row !== undefined) {
        addRow(sum, row, wordFactor[row - pieceRows]!);
        used = true;
      } else if (addPieces(sum, word, unknown)) {
        used = true;
      }
    });
    // Punctuation or symbols only: the pieces of the whole text; failing that, a fixed direction.
    if (!used && !addPieces(sum, text.trim(), 1)) sum[0] = 1;
    let norm = 0;
    for (let i = 0; i < dims; i++) norm += sum[i]! * sum[i]!;
    norm = Math.sqrt(norm) || 1;
    for (let i = 0; i < dims; i++) sum[i]! /= norm;
    return sum;
  }

  function embedSync(texts: string[]): Float32Array[] {
    assertEmbeddableTexts(texts);
    return texts.map(embedText);
  }

  return { kind: "static", modelVersion: table.modelVersion, dims, spec, embedSync, embed: async (texts) => embedSync(texts) };
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
