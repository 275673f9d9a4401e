/**
 * Markdown and plain text as chunks: split at headings (Markdown), then packed paragraph by
 * paragraph up to a size, each chunk overlapping the previous one a little so a fact cut at a
 * boundary is whole in one of them. A chunk starts with its heading path so it reads on its own.
 */
import type { IngestUnit, ParseOptions, ParsedSource } from "./source.ts";

export type ChunkOptions = { maxChars?: number; overlapChars?: number };
type Paragraph = { text: string; start: number; end: number };
type Section = { headings: string[]; paragraphs: Paragraph[] };

const HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;
const FENCE = /^\s*(```|~~~)/;

/** Sections of a document with their heading path; `markdown: false` treats # lines as text. */
export function splitSections(text: string, markdown: boolean): Section[] {
  const sections: Section[] = [];
  const stack: string[] = [];
  let current: Section = { headings: [], paragraphs: [] };
  let paragraph: string[] = [];
  let paragraphStart = 0;
  let inFence = false;
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const flush = (end: number) => {
    const body = paragraph.join("\n").trim();
    if (body) current.paragraphs.push({ text: body, start: paragraphStart + 1, end });
    paragraph = [];
  };
  lines.forEach((line, i) => {
    if (FENCE.test(line)) inFence = !inFence;
    const heading = markdown && !inFence ? HEADING.exec(line) : null;
    if (heading) {
      flush(i);
      if (current.paragraphs.length > 0) sections.push(current);
      stack.splice(heading[1]!.length - 1);
      stack[heading[1]!.length - 1] = heading[2]!;
      current = { headings: stack.filter(Boolean), paragraphs: [] };
      paragraphStart = i + 1;
    } else if (!inFence && line.trim() === "") {
      flush(i);
      paragraphStart = i + 1;
    } else {
      if (paragraph.length === 0) paragraphStart = i;
      paragraph.push(line);
    }
  });
  flush(lines.length);
  if (current.paragraphs.length > 0) sections.push(current);
  return sections;
}

/** Cuts text over `max` characters at sentence ends, else at spaces. */
function splitLong(paragraph: Paragraph, max: number): Paragraph[] {
  if (paragraph.text.length <= max) return [paragraph];
  const pieces: Paragraph[] = [];
  let rest = paragraph.text;
  while (rest.length > max) {
    const window = rest.slice(0, max);
    const sentence = Math.max(window.lastIndexOf(". "), window.lastIndexOf("! "), window.lastIndexOf("? "), window.lastIndexOf("\n"));
    const space = window.lastIndexOf(" ");
    const cut = sentence > max / 2 ? sentence + 1 : space > max / 2 ? space : max;
    pieces.push({ ...paragraph, text: rest.slice(0, cut).trim() });
    rest = rest.slice(cut).trim();
  }
  if (rest) pieces.push({ ...paragraph, text: rest });
  return pieces;
}

/** The tail of a text, at most `chars` long, starting at a word. */
function tailOf(text: string, chars: number): string {
  if (text.length <= chars) return text;
  const tail = text.slice(text.length - chars);
  const space = tail.indexOf(" ");
  return space >= 0 ? tail.slice(space + 1) : tail;
}

export type Chunk = { headings: string[]; text: string; startLine: number; endLine: number };

export function chunkDocument(text: string, markdown: boolean, options: ChunkOptions = {}): Chunk[] {
  const max = options.maxChars ?? 1500;
  const overlap = options.overlapChars ?? 200;
  const chunks: Chunk[] = [];
  for (const section of splitSections(text, markdown)) {
    let body: string[] = [];
    let start = 0;
    let end = 0;
    let carried = "";
    const emit = () => {
      if (body.length === 0) return;
      const joined = body.join("\n\n");
      chunks.push({ headings: section.headings, text: joined, startLine: start, endLine: end });
      carried = tailOf(joined, overlap);
      body = [];
    };
    for (const paragraph of section.paragraphs.flatMap((p) => splitLong(p, max - overlap))) {
      const size = body.reduce((n, b) => n + b.length + 2, 0);
      if (body.length > 0 && size + paragraph.text.length > max) {
        emit();
        body = [carried];
        start = paragraph.start;
      }
      if (body.length === 0) start = paragraph.start;
      body.push(paragraph.text);
      end = paragraph.end;
    }
    emit();
  }
  return chunks;
}

export function parseMarkdown(text: string, options: ParseOptions & { markdown: boolean; chunk?: ChunkOptions }): ParsedSource {
  const sessionId = options.session ?? options.file;
  const chunks = chunkDocument(text, options.markdown, options.chunk);
  const unit: IngestUnit = {
    key: options.file,
    sessions: [{ scope: options.scope, id: sessionId, title: options.file }],
    episodes: chunks.map((chunk, i) => ({
      scope: options.scope,
      kind: "chunk" as const,
      sessionId,
      seq: i,
      content: chunk.headings.length > 0 ? `${chunk.headings.join(" > ")}\n\n${chunk.text}` : chunk.text,
      metadata: { file: options.file, headings: chunk.headings, lines: [chunk.startLine, chunk.endLine] },
    })),
  };
  return { format: options.markdown ? "markdown" : "text", units: unit.episodes.length > 0 ? [unit] : [], bad: [] };
}
