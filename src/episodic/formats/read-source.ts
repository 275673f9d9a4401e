/** One source file in a named or detected format, read as a stream of records (as often as needed). */
import { statSync } from "node:fs";
import { basename, extname } from "node:path";
import { GllamError } from "../../engine/errors.ts";
import { looksLikeBeam, parseBeam } from "./beam.ts";
import { parseJsonText } from "./json-text.ts";
import { parseJsonl } from "./jsonl.ts";
import { looksLikeLocomo, parseLocomo } from "./locomo.ts";
import { looksLikeLongMemEval, parseLongMemEval } from "./longmemeval.ts";
import { parseMarkdown } from "./markdown.ts";
import { FORMAT_NAMES, type FormatName, type ParseOptions, type SourceRecord } from "./source.ts";
import { fileBlocks, memoryBlocks, readTextLines, readWholeText } from "./text-lines.ts";

export type ReadSourceOptions = Omit<ParseOptions, "file"> & { format?: FormatName | "auto" };

/** A JSONL line longer than this is a bad record (never held whole); content is at most 1,000,000 characters. */
export const MAX_JSONL_LINE_BYTES = 16 * 1024 ** 2;
/** Prose lines longer than this are handed on in pieces. */
const MAX_TEXT_LINE_BYTES = 64 * 1024;
/** JSON formats are parsed whole: larger files are refused rather than exhausting memory. */
export const MAX_JSON_FILE_BYTES = 1024 ** 3;

export type Source = {
  readonly file: string;
  /** Named, or by extension; a .json file's format is known once records() has read it. */
  format: FormatName | undefined;
  /** The file's records, read from the start on every call. */
  records(): Generator<SourceRecord>;
};

function detectJsonFormat(data: unknown, file: string): FormatName {
  if (looksLikeLocomo(data)) return "locomo";
  if (looksLikeLongMemEval(data)) return "longmemeval";
  if (looksLikeBeam(data)) return "beam";
  throw new GllamError("E_BAD_INPUT", `${file}: cannot tell the format of this JSON (not LoCoMo, LongMemEval or BEAM); name it with --format`);
}

/** The format a name and --format give: JSON formats are told apart by their content. */
function formatOf(file: string, format: FormatName | "auto"): FormatName | "json" {
  if (format !== "auto") return format;
  const extension = extname(file).toLowerCase();
  if (extension === ".jsonl" || extension === ".ndjson") return "jsonl";
  if (extension === ".md" || extension === ".markdown") return "markdown";
  return extension === ".json" ? "json" : "text";
}

/** A source over any bytes: `blocks()` gives them again for each read. */
export function openSource(file: string, blocks: () => Iterable<Uint8Array>, options: ReadSourceOptions = {}): Source {
  const named = options.format ?? "auto";
  if (named !== "auto" && !FORMAT_NAMES.includes(named)) {
    throw new GllamError("E_BAD_INPUT", `unknown format "${named}" (one of auto, ${FORMAT_NAMES.join(", ")})`);
  }
  const parse: ParseOptions = { file, scope: options.scope, session: options.session };
  const kind = formatOf(file, named);
  const source: Source = {
    file,
    format: kind === "json" ? undefined : kind,
    *records() {
      if (kind === "jsonl") return yield* parseJsonl(readTextLines(blocks(), { file, maxLineBytes: MAX_JSONL_LINE_BYTES, longLines: "bad" }), parse);
      if (kind === "markdown" || kind === "text") {
        return yield* parseMarkdown(readTextLines(blocks(), { file, maxLineBytes: MAX_TEXT_LINE_BYTES, longLines: "cut" }), { ...parse, markdown: kind === "markdown" });
      }
      const text = readWholeText(blocks(), file, MAX_JSON_FILE_BYTES);
      const data = parseJsonText(text, file);
      const format = kind === "json" ? detectJsonFormat(data, file) : kind;
      source.format = format;
      if (format === "locomo") return yield* parseLocomo(data, parse);
      if (format === "longmemeval") return yield* parseLongMemEval(data, parse);
      // A chat without a --session is named by its file's name and content, so the same file
      // ingested from another folder is the same chat.
      const hash = new Bun.CryptoHasher("sha256").update(text).digest("hex").slice(0, 12);
      return yield* parseBeam(data, { ...parse, session: options.session ?? `${basename(file)}#${hash}` });
    },
  };
  return source;
}

/** A source over bytes in memory (tests, fuzzing, callers with the text at hand). */
export const openSourceBytes = (bytes: Uint8Array | string, file: string, options: ReadSourceOptions = {}): Source =>
  openSource(file, () => memoryBlocks(typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes), options);

export type FileIdentity = { size: number; mtimeMs: number };

/** Size and modification time of a file to ingest, or a clear error when it cannot be read. */
export function statSourceFile(path: string): FileIdentity {
  try {
    const stats = statSync(path);
    if (!stats.isFile()) throw new GllamError("E_BAD_INPUT", `${path} is not a file`);
    return { size: stats.size, mtimeMs: stats.mtimeMs };
  } catch (error) {
    if (error instanceof GllamError) throw error;
    throw new GllamError("E_NOT_FOUND", `cannot read ${path}: no such file`);
  }
}

/** A source over a file on disk, read block by block. */
export function openSourceFile(path: string, options: ReadSourceOptions = {}): Source {
  statSourceFile(path);
  return openSource(path, () => fileBlocks(path), options);
}
