/**
 * Is a file text? The one rule every ingest format applies to the bytes before decoding them. Pure.
 *
 * - A NUL byte anywhere: not text (a binary file, or UTF-16).
 * - In the first 8 KiB, more than 10% of the bytes are control characters (other than tab, line
 *   breaks, form feed and escape) or bytes of invalid UTF-8 sequences: not text.
 * - Otherwise the file is UTF-8 text, and an invalid sequence is a bad spot at its byte offset
 *   (a bad record of a line-based format, or a refused JSON file).
 */
export const SAMPLE_BYTES = 8192;
const BINARY_SHARE = 0.1;

/** Length of the valid UTF-8 sequence starting at i: 0 when invalid, -1 when the bytes end inside it. */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const lead = bytes[i]!;
  if (lead < 0x80) return 1;
  let length: number;
  let low = 0x80;
  let high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) length = 2;
  else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead === 0xe0) low = 0xa0; // overlong
    if (lead === 0xed) high = 0x9f; // UTF-16 surrogates
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead === 0xf0) low = 0x90; // overlong
    if (lead === 0xf4) high = 0x8f; // above U+10FFFF
  } else return 0;
  for (let k = 1; k < length; k++) {
    if (i + k >= bytes.length) return -1;
    const byte = bytes[i + k]!;
    if (k === 1 ? byte < low || byte > high : byte < 0x80 || byte > 0xbf) return 0;
  }
  return length;
}

/** Offset of the first invalid UTF-8 sequence, or -1. A sequence cut by the end is invalid only when `complete`. */
export function findInvalidUtf8(bytes: Uint8Array, complete = true): number {
  for (let i = 0; i < bytes.length; ) {
    const length = sequenceLength(bytes, i);
    if (length === 0 || (length === -1 && complete)) return i;
    if (length === -1) return -1;
    i += length;
  }
  return -1;
}

const isControl = (byte: number) => byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0b && byte !== 0x0c && byte !== 0x0d && byte !== 0x1b;

/**
 * Why the start of a file is not text (its first SAMPLE_BYTES bytes; `complete` when that is the
 * whole file), or undefined when it reads as text.
 */
export function notTextReason(sample: Uint8Array, complete: boolean): string | undefined {
  const cut = !complete || sample.length > SAMPLE_BYTES;
  const bytes = sample.subarray(0, SAMPLE_BYTES);
  const nul = bytes.indexOf(0);
  if (nul >= 0) return `a NUL byte at byte ${nul}`;
  let odd = 0;
  for (let i = 0; i < bytes.length; ) {
    const length = sequenceLength(bytes, i);
    if (length === -1 && cut) break;
    if (length <= 0) {
      odd++;
      i++;
    } else {
      if (length === 1 && isControl(bytes[i]!)) odd++;
      i += length;
    }
  }
  return odd > bytes.length * BINARY_SHARE ? `${Math.round((100 * odd) / bytes.length)}% of its first ${bytes.length} bytes are control characters or invalid UTF-8` : undefined;
}
