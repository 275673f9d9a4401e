/**
 * A command line split into words the way a POSIX shell splits it, without a shell: blanks
 * separate words; '...' keeps everything literally; "..." keeps blanks and takes \ before " \ $ `
 * as an escape; \ outside quotes keeps the next character. Nothing is expanded (no variables,
 * globs or substitutions), so what is typed is what the command gets.
 */
import { GllamError } from "../engine/errors.ts";

const BLANK = /[ \t\r\n]/;
const ESCAPABLE_IN_DOUBLE = new Set(['"', "\\", "$", "`"]);

export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  // undefined until a word starts: "" is a word (from empty quotes), nothing is not.
  let word: string | undefined;
  let quote: "'" | '"' | undefined;
  let quoteAt = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word = `${word}${c}`;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === "\\" && ESCAPABLE_IN_DOUBLE.has(line[i + 1] ?? "")) word = `${word}${line[++i]}`;
      else word = `${word}${c}`;
    } else if (BLANK.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'" || c === '"') {
      quote = c;
      quoteAt = i;
      word ??= "";
    } else if (c === "\\") {
      word = (word ?? "") + (line[++i] ?? "");
    } else {
      word = (word ?? "") + c;
    }
  }
  if (quote) throw new GllamError("E_USAGE", `unterminated ${quote === "'" ? "single" : "double"} quote at column ${quoteAt + 1}`);
  if (word !== undefined) words.push(word);
  return words;
}
