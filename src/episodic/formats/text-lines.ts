/**
 * A file's bytes block by block, and its text line by line, in bounded memory: only the block at
 * hand and an unfinished line are held. The text rule (text-bytes.ts) is applied on the way.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { GllamError } from "../../engine/errors.ts";
import { findInvalidUtf8, notTextReason } from "./text-bytes.ts";

export const BLOCK_BYTES = 1 << 20;

/** A line of text (without its line break; or a piece of an over-long one), or why line `line` could not be read. */
export type TextLine = { line: number; text: string } | { line: number; problem: string };

/**
 * A file's bytes in blocks; each call reads the file again. One buffer serves every block (a fresh
 * one each would leave a gigabyte of garbage behind a gigabyte file), so a reader that keeps bytes
 * past the next block copies them.
 */
export function* fileBlocks(path: string, blockBytes = BLOCK_BYTES): Generator<Uint8Array> {
  const fd = openSync(path, "r");
  const buffer = new Uint8Array(blockBytes);
  try {
    for (;;) {
      const read = readSync(fd, buffer, 0, blockBytes, null);
      if (read === 0) return;
      yield buffer.subarray(0, read);
    }
  } finally {
    closeSync(fd);
  }
}

/** Bytes already in memory, in blocks (so they are read exactly as a file would be). */
export function* memoryBlocks(bytes: Uint8Array, blockBytes = BLOCK_BYTES): Generator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += blockBytes) yield bytes.subarray(at, at + blockBytes);
}

const notText = (file: string, reason: string) => new GllamError("E_BAD_INPUT", `${file}: not text (${reason}); only UTF-8 text files are ingested`);

/** Checks each block on the way through: the start of the file by the text rule, every block for NUL bytes. */
export function* textBlocks(blocks: Iterable<Uint8Array>, file: string): Generator<Uint8Array> {
  let offset = 0;
  for (const block of blocks) {
    if (offset === 0) {
      const reason = notTextReason(block, false);
      if (reason) throw notText(file, reason);
    }
    const nul = block.indexOf(0);
    if (nul >= 0) throw notText(file, `a NUL byte at byte ${offset + nul}`);
    offset += block.length;
    yield block;
  }
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * The whole text of a file (JSON formats), refused when it is larger than maxBytes, not text, or not
 * valid UTF-8 (naming the byte offset).
 */
export function readWholeText(blocks: Iterable<Uint8Array>, file: string, maxBytes: number): string {
  const parts: Uint8Array[] = [];
  let size = 0;
  for (const block of textBlocks(blocks, file)) {
    size += block.length;
    if (size > maxBytes) throw new GllamError("E_BAD_INPUT", `${file} is over ${maxBytes} bytes; JSON files are read whole, so larger ones are not ingested`);
    parts.push(block.slice());
  }
  if (parts.length === 0) return "";
  const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  const first = notTextReason(bytes, true);
  if (first) throw notText(file, first);
  try {
    return decoder.decode(bytes);
  } catch {
    throw new GllamError("E_BAD_INPUT", `${file}: invalid UTF-8 at byte ${findInvalidUtf8(bytes)}`);
  }
}

export type ReadLinesOptions = {
  file: string;
  /** Longest line kept whole, in bytes. */
  maxLineBytes: number;
  /** What a longer line becomes: a bad record (one record a line), or pieces of at most that size (prose). */
  longLines: "bad" | "cut";
};

/**
 * Lines of UTF-8 text (a trailing \r dropped). A line with invalid UTF-8 is reported with its byte
 * offset and skipped; the file is refused as not text by the rule of text-bytes.ts.
 */
export function* readTextLines(blocks: Iterable<Uint8Array>, options: ReadLinesOptions): Generator<TextLine> {
  let line = 0;
  let carry: Uint8Array = new Uint8Array(0);
  let carryOffset = 0;
  let skipping = false;
  let offset = 0;

  const strip = (text: string) => (text.endsWith("\r") ? text.slice(0, -1) : text);
  // One line that fails to decode is reported with the offset of its first bad byte.
  const decodeLine = (bytes: Uint8Array, at: number, number: number): TextLine => {
    try {
      return { line: number, text: decoder.decode(bytes) };
    } catch {
      return { line: number, problem: `invalid UTF-8 at byte ${at + findInvalidUtf8(bytes)}` };
    }
  };
  const decodeOne = (bytes: Uint8Array, at: number): TextLine => {
    const decoded = decodeLine(bytes, at, ++line);
    return "text" in decoded ? { ...decoded, text: strip(decoded.text) } : decoded;
  };

  for (const block of textBlocks(blocks, options.file)) {
    const blockOffset = offset;
    offset += block.length;
    let start = 0;
    if (skipping) {
      const end = block.indexOf(0x0a);
      if (end < 0) continue;
      skipping = false;
      start = end + 1;
    }
    const firstBreak = block.indexOf(0x0a, start);
    const head = (firstBreak < 0 ? block.length : firstBreak) - start;
    if (carry.length + head > options.maxLineBytes) {
      if (options.longLines === "bad") {
        yield { line: ++line, problem: `line longer than ${options.maxLineBytes} bytes` };
        carry = new Uint8Array(0);
        if (firstBreak < 0) {
          skipping = true;
          continue;
        }
        start = firstBreak + 1;
      } else if (firstBreak < 0) {
        // Prose without line breaks: hand on pieces of the line, each cut where a character starts.
        let data = concat(carry, block.subarray(start));
        let at = carry.length > 0 ? carryOffset : blockOffset + start;
        while (data.length > options.maxLineBytes) {
          let cut = options.maxLineBytes;
          while (cut > 1 && (data[cut]! & 0xc0) === 0x80) cut--;
          yield decodeLine(data.subarray(0, cut), at, line + 1);
          at += cut;
          data = data.subarray(cut);
        }
        carry = data.slice();
        carryOffset = at;
        continue;
      }
    }
    const data = concat(carry, block.subarray(start));
    const dataOffset = carry.length > 0 ? carryOffset : blockOffset + start;
    const last = data.lastIndexOf(0x0a);
    // The unfinished line is copied: the block's buffer is read into again.
    if (last < 0) {
      carry = data.slice();
      carryOffset = dataOffset;
      continue;
    }
    yield* decodeLinesSafely(data.subarray(0, last), dataOffset);
    carry = data.slice(last + 1);
    carryOffset = dataOffset + last + 1;
  }
  if (carry.length > 0) yield decodeOne(carry, carryOffset);

  // Complete lines, decoded together (fast); only when that fails is each line decoded alone.
  function* decodeLinesSafely(bytes: Uint8Array, at: number): Generator<TextLine> {
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      for (let start = 0; start <= bytes.length; ) {
        const end = bytes.indexOf(0x0a, start);
        const stop = end < 0 ? bytes.length : end;
        yield decodeOne(bytes.subarray(start, stop), at + start);
        start = stop + 1;
      }
      return;
    }
    for (const piece of text.split("\n")) yield { line: ++line, text: strip(piece) };
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}
