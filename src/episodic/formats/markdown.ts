/**
 * Markdown and plain text as chunks: split at headings (Markdown), then packed paragraph by
 * paragraph up to a size, each chunk overlapping the previous one a little so a fact cut at a
 * boundary is whole in one of them. A chunk starts with its heading path so it reads on its own.
 * Read line by line: only the section's open chunk and paragraph are held, so memory does not grow
 * with the file (a paragraph without blank lines is cut as it grows).
 */
import { basename } from "node:path";
import type { ParseOptions, SourceRecord } from "./source.ts";
import type { TextLine } from "./text-lines.ts";

export type ChunkOptions = { maxChars?: number; overlapChars?: number };
export type Chunk = { headings: string[]; text: string; startLine: number; endLine: number };
type Paragraph = { text: string; start: number; end: number };
type NumberedLine = { line: number; text: string };

const FENCE = /^\s*(```|~~~)/;
/** A paragraph this long is cut into pieces before it ends (the cuts are those the whole paragraph would get). */
const PARAGRAPH_BOUND = 64 * 1024;

/** "## Install ##" -> level 2, "Install"; undefined for a line that is not an ATX heading. Linear (no regex backtracking). */
function readHeading(line: string): { level: number; title: string } | undefined {
  let level = 0;
  while (line[level] === "#") level++;
  if (level < 1 || level > 6 || !/\s/.test(line[level] ?? "")) return undefined;
  const rest = line.slice(level).trim();
  if (!rest) return undefined;
  let end = rest.length;
  while (end > 0 && rest[end - 1] === "#") end--;
  const title = rest.slice(0, end).trimEnd();
  return { level, title: title || rest };
}

/** Cuts text over `max` characters at sentence ends, else at spaces, while more than `max` is left; returns the pieces and the rest. */
function cutLong(text: string, max: number): { pieces: string[]; rest: string } {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const window = rest.slice(0, max);
    const sentence = Math.max(window.lastIndexOf(". "), window.lastIndexOf("! "), window.lastIndexOf("? "), window.lastIndexOf("\n"));
    const space = window.lastIndexOf(" ");
    const cut = sentence > max / 2 ? sentence + 1 : space > max / 2 ? space : max;
    pieces.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trimStart();
  }
  return { pieces, rest };
}

/** The tail of a text, at most `chars` long, starting at a word. */
function tailOf(text: string, chars: number): string {
  if (text.length <= chars) return text;
  const tail = text.slice(text.length - chars);
  const space = tail.indexOf(" ");
  return space >= 0 ? tail.slice(space + 1) : tail;
}

/** Chunks of numbered lines; `markdown: false` treats # lines as text. */
export function* chunkLines(lines: Iterable<NumberedLine>, markdown: boolean, options: ChunkOptions = {}): Generator<Chunk> {
  const max = options.maxChars ?? 1500;
  const overlap = options.overlapChars ?? 200;
  const stack: string[] = [];
  let headings: string[] = [];
  // The section's open chunk.
  let body: string[] = [];
  let size = 0;
  let start = 0;
  let end = 0;
  let carried = "";
  // The open paragraph.
  let paragraph: string[] = [];
  let paragraphChars = 0;
  let paragraphStart = 0;
  let paragraphEnd = 0;
  let inFence = false;

  function* emit(): Generator<Chunk> {
    if (body.length === 0) return;
    const joined = body.join("\n\n");
    yield { headings, text: joined, startLine: start, endLine: end };
    carried = tailOf(joined, overlap);
    body = [];
    size = 0;
  }
  function* pack(piece: Paragraph): Generator<Chunk> {
    if (body.length > 0 && size + piece.text.length > max) {
      yield* emit();
      body = [carried];
      size = carried.length + 2;
      start = piece.start;
    }
    if (body.length === 0) start = piece.start;
    body.push(piece.text);
    size += piece.text.length + 2;
    end = piece.end;
  }
  /** Packs the open paragraph's finished pieces: all of it when it ends, else what is cut off a long one. */
  function* flush(ended: boolean): Generator<Chunk> {
    if (paragraph.length === 0) return;
    const text = paragraph.join("\n").trimStart();
    const { pieces, rest } = cutLong(ended ? text.trimEnd() : text, max - overlap);
    if (ended && rest) pieces.push(rest);
    for (const piece of pieces) if (piece) yield* pack({ text: piece, start: paragraphStart, end: paragraphEnd });
    paragraph = ended || !rest ? [] : [rest];
    paragraphChars = ended ? 0 : rest.length;
  }
  function* endSection(): Generator<Chunk> {
    yield* flush(true);
    yield* emit();
    carried = "";
  }

  for (const item of lines) {
    for (const line of item.text.split("\r")) {
      if (FENCE.test(line)) inFence = !inFence;
      const heading = markdown && !inFence ? readHeading(line) : undefined;
      if (heading) {
        yield* endSection();
        stack.splice(heading.level - 1);
        stack[heading.level - 1] = heading.title;
        headings = stack.filter(Boolean);
      } else if (!inFence && line.trim() === "") {
        yield* flush(true);
      } else {
        if (paragraph.length === 0) paragraphStart = item.line;
        paragraph.push(line);
        paragraphChars += line.length + 1;
        paragraphEnd = item.line;
        if (paragraphChars > PARAGRAPH_BOUND) yield* flush(false);
      }
    }
  }
  yield* endSection();
}

/** A chunk's episode text: its heading path first, so it reads on its own. */
export const chunkContent = (chunk: Chunk): string => (chunk.headings.length > 0 ? `${chunk.headings.join(" > ")}\n\n${chunk.text}` : chunk.text);

/** Chunks of a whole text (lines numbered from 1). */
export function chunkDocument(text: string, markdown: boolean, options: ChunkOptions = {}): Chunk[] {
  return [...chunkLines(text.split("\n").map((line, i) => ({ line: i + 1, text: line })), markdown, options)];
}

/** Session `options.session` (default: the file's base name), one chunk episode per chunk; unreadable lines are bad records. */
export function* parseMarkdown(lines: Iterable<TextLine>, options: ParseOptions & { markdown: boolean; chunk?: ChunkOptions }): Generator<SourceRecord> {
  const sessionId = options.session ?? basename(options.file);
  const problems: SourceRecord[] = [];
  function* readable(): Generator<NumberedLine> {
    for (const item of lines) {
      if ("problem" in item) problems.push({ where: `${options.file}:${item.line}`, problem: item.problem });
      else yield item;
    }
  }
  let seq = 0;
  for (const chunk of chunkLines(readable(), options.markdown, options.chunk)) {
    yield* problems.splice(0);
    if (seq === 0) yield { where: options.file, session: { scope: options.scope, id: sessionId, title: options.file } };
    yield {
      where: `${options.file}:${chunk.startLine}`,
      episode: {
        scope: options.scope,
        kind: "chunk",
        sessionId,
        seq: seq++,
        content: chunkContent(chunk),
        metadata: { file: options.file, headings: chunk.headings, lines: [chunk.startLine, chunk.endLine] },
      },
    };
  }
  yield* problems.splice(0);
}
