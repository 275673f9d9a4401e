/**
 * Words of a text for the static embedder: maximal runs of letters, digits and combining marks.
 * Apostrophes split ("don't" -> don, t), as in the word list's corpus. A hand-written scanner:
 * a regular expression over every turn costs more than the table lookups it feeds. Pure.
 */
const WORD_CHAR = /^[\p{L}\p{N}\p{M}]$/u;

function isWordCode(text: string, at: number, code: number): boolean {
  if (code < 128) return (code >= 48 && code <= 57) || ((code | 32) >= 97 && (code | 32) <= 122);
  return WORD_CHAR.test(String.fromCodePoint(text.codePointAt(at)!));
}

export function forEachWord(text: string, visit: (word: string) => void): void {
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const wide = code >= 0xd800 && code <= 0xdbff;
    if (isWordCode(text, i, code)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      visit(text.slice(start, i));
      start = -1;
    }
    if (wide) i++;
  }
  if (start >= 0) visit(text.slice(start));
}
