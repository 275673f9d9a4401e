/** Reads one source file in a named or detected format into ingest units. */
import { statSync } from "node:fs";
import { basename, extname } from "node:path";
import { GllamError } from "../../engine/errors.ts";
import { looksLikeBeam, parseBeam } from "./beam.ts";
import { parseJsonText } from "./json-text.ts";
import { parseJsonl } from "./jsonl.ts";
import { looksLikeLocomo, parseLocomo } from "./locomo.ts";
import { looksLikeLongMemEval, parseLongMemEval } from "./longmemeval.ts";
import { parseMarkdown } from "./markdown.ts";
import { FORMAT_NAMES, type FormatName, type ParseOptions, type ParsedSource } from "./source.ts";

export type ReadSourceOptions = Omit<ParseOptions, "file"> & { format?: FormatName | "auto" };

/** Larger files are refused up front rather than exhausting memory mid-parse. */
const MAX_FILE_BYTES = 2 * 1024 ** 3;

function detectJsonFormat(data: unknown, file: string): FormatName {
  if (looksLikeLocomo(data)) return "locomo";
  if (looksLikeLongMemEval(data)) return "longmemeval";
  if (looksLikeBeam(data)) return "beam";
  throw new GllamError("E_BAD_INPUT", `${file}: cannot tell the format of this JSON (not LoCoMo, LongMemEval or BEAM); name it with --format`);
}

/** Parses text already read; `file` names it in errors. */
export function parseSourceText(text: string, file: string, options: ReadSourceOptions = {}): ParsedSource {
  if (options.format && options.format !== "auto" && !FORMAT_NAMES.includes(options.format)) {
    throw new GllamError("E_BAD_INPUT", `unknown format "${options.format}" (one of auto, ${FORMAT_NAMES.join(", ")})`);
  }
  const parse: ParseOptions = { ...options, file };
  const extension = extname(file).toLowerCase();
  let format = options.format ?? "auto";
  if (format === "auto") {
    if (extension === ".jsonl" || extension === ".ndjson") format = "jsonl";
    else if (extension === ".md" || extension === ".markdown") format = "markdown";
    else if (extension !== ".json") format = "text";
  }
  if (format === "jsonl") return parseJsonl(text, parse);
  if (format === "markdown" || format === "text") return parseMarkdown(text, { ...parse, session: options.session ?? basename(file), markdown: format === "markdown" });
  const data = parseJsonText(text, file);
  const jsonFormat = format === "auto" ? detectJsonFormat(data, file) : format;
  if (jsonFormat === "locomo") return parseLocomo(data, parse);
  if (jsonFormat === "longmemeval") return parseLongMemEval(data, parse);
  return parseBeam(data, { ...parse, session: options.session ?? file });
}

export async function readSourceFile(path: string, options: ReadSourceOptions = {}): Promise<ParsedSource> {
  let size: number;
  try {
    const stats = statSync(path);
    if (!stats.isFile()) throw new GllamError("E_BAD_INPUT", `${path} is not a file`);
    size = stats.size;
  } catch (error) {
    if (error instanceof GllamError) throw error;
    throw new GllamError("E_NOT_FOUND", `cannot read ${path}: no such file`);
  }
  if (size > MAX_FILE_BYTES) throw new GllamError("E_BAD_INPUT", `${path} is ${size} bytes; files over ${MAX_FILE_BYTES} bytes are not ingested`);
  return parseSourceText(await Bun.file(path).text(), path, options);
}
