/**
 * The static embedding table: one int8 row (with its own scale) per model vocabulary piece, then
 * one per word of the word list, and the header a StaticEmbedder needs (piece vocabulary for the
 * tokenizer, words with their frequency ranks). One binary file, so it is cached and embedded in
 * the compiled executable as is. Pure: encoding, decoding, quantisation.
 */
import * as v from "valibot";
import { GllamError } from "../../engine/errors.ts";

const MAGIC = "GLLAMST1";

/**
 * An array whose every item passes `isItem`, checked in one loop: the header's lists hold ~70,000
 * items, and valibot's per-item schemas took ~19 ms of every process's first embed to check them.
 */
const arrayOf = <T>(isItem: (item: unknown) => item is T, what: string) =>
  v.custom<T[]>((input) => Array.isArray(input) && input.every(isItem), `expected an array of ${what}`);
const isString = (item: unknown): item is string => typeof item === "string";
const isPiece = (item: unknown): item is [string, number | null] =>
  Array.isArray(item) && item.length === 2 && typeof item[0] === "string" && (item[1] === null || typeof item[1] === "number");
const isRank = (item: unknown): item is number => Number.isInteger(item) && (item as number) >= 1;

const HeaderSchema = v.strictObject({
  modelVersion: v.pipe(v.string(), v.minLength(1)),
  dims: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(8192)),
  /** Rows 0..pieceRows-1 are pieces by id; a smaller table (tests) may cover only the first ids. */
  pieceRows: v.pipe(v.number(), v.integer(), v.minValue(0)),
  pieces: arrayOf(isPiece, "[piece, score or null] pairs"),
  /** Words in row order after the pieces, each with its 1-based rank in the full word list. */
  words: arrayOf(isString, "strings"),
  ranks: arrayOf(isRank, "integers from 1"),
  /** Size of the full word list: Zipf probabilities are normalised over it. */
  listSize: v.pipe(v.number(), v.integer(), v.minValue(1)),
});
export type StaticTableHeader = v.InferOutput<typeof HeaderSchema>;

export type StaticTable = StaticTableHeader & {
  /** rows x dims, row-major. */
  values: Int8Array;
  /** value * scale = the model's float. */
  scales: Float32Array;
};

export const tableRows = (header: Pick<StaticTableHeader, "pieceRows" | "words">) => header.pieceRows + header.words.length;

/** Per-row symmetric int8 quantisation: the largest magnitude maps to 127. */
export function quantiseRows(rows: Float32Array[], dims: number): { values: Int8Array; scales: Float32Array } {
  const values = new Int8Array(rows.length * dims);
  const scales = new Float32Array(rows.length);
  rows.forEach((row, r) => {
    let max = 0;
    for (let i = 0; i < dims; i++) max = Math.max(max, Math.abs(row[i]!));
    const scale = max > 0 ? max / 127 : 1;
    scales[r] = scale;
    for (let i = 0; i < dims; i++) values[r * dims + i] = Math.round(row[i]! / scale);
  });
  return { values, scales };
}

export function encodeStaticTable(table: StaticTable): Uint8Array {
  const header = new TextEncoder().encode(
    JSON.stringify({ modelVersion: table.modelVersion, dims: table.dims, pieceRows: table.pieceRows, pieces: table.pieces, words: table.words, ranks: table.ranks, listSize: table.listSize }),
  );
  // magic, header length, header, padding to 4 bytes, scales (float32), values (int8)
  const headerEnd = 12 + header.length;
  const scalesAt = Math.ceil(headerEnd / 4) * 4;
  const valuesAt = scalesAt + table.scales.byteLength;
  const out = new Uint8Array(valuesAt + table.values.byteLength);
  out.set(new TextEncoder().encode(MAGIC), 0);
  new DataView(out.buffer).setUint32(8, header.length, true);
  out.set(header, 12);
  out.set(new Uint8Array(table.scales.buffer, table.scales.byteOffset, table.scales.byteLength), scalesAt);
  out.set(new Uint8Array(table.values.buffer, table.values.byteOffset, table.values.byteLength), valuesAt);
  return out;
}

export function decodeStaticTable(bytes: Uint8Array, where: string): StaticTable {
  const bad = (problem: string) => new GllamError("E_EMBEDDER", `${where} is not a static embedding table: ${problem}`);
  if (bytes.length < 12 || new TextDecoder().decode(bytes.subarray(0, 8)) !== MAGIC) throw bad("wrong magic bytes");
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(8, true);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + headerLength)));
  } catch {
    throw bad("unreadable header");
  }
  const parsed = v.safeParse(HeaderSchema, json);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    throw bad(`invalid header (${v.getDotPath(issue) ?? "header"}: ${issue.message})`);
  }
  const header = parsed.output;
  const rows = tableRows(header);
  if (header.ranks.length !== header.words.length || header.pieceRows > header.pieces.length) throw bad("inconsistent header");
  const scalesAt = Math.ceil((12 + headerLength) / 4) * 4;
  const valuesAt = scalesAt + rows * 4;
  if (bytes.length !== valuesAt + rows * header.dims) throw bad(`expected ${valuesAt + rows * header.dims} bytes, found ${bytes.length}`);
  // Views, not copies (a mapped file's rows are then read from the page cache, and only those
  // used): int8 needs no alignment, and float32 is copied only when the bytes start off 4 bytes.
  const at = bytes.byteOffset;
  const scales = (at + scalesAt) % 4 === 0 ? new Float32Array(bytes.buffer, at + scalesAt, rows) : new Float32Array(bytes.slice(scalesAt, valuesAt).buffer);
  const values = new Int8Array(bytes.buffer, at + valuesAt, rows * header.dims);
  return { ...header, scales, values };
}

/** Words (first spelling per lower-cased form) of a frequency-ordered list, one a line. */
export function parseWordList(text: string): string[] {
  const seen = new Set<string>();
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((word) => word && !seen.has(word.toLowerCase()) && seen.add(word.toLowerCase()));
}

