/**
 * The episode lexicon's terms: lower-cased words without diacritics, split on anything that is not
 * a letter or digit (FTS5's unicode61 does the same), stemmed by Porter.
 */
import { porterStem } from "./porter.ts";

const WORD = /[\p{L}\p{N}]+/gu;
const ASCII_WORD = /[a-z0-9]+/g;
const NON_ASCII = /[^\x00-\x7f]/;
const MARKS = /\p{M}+/gu;

// Stems of words seen lately: a conversation repeats its words, and stemming is most of the cost.
const stems = new Map<string, string>();
const STEMS_KEPT = 100_000;

function stemOf(word: string): string {
  let stem = stems.get(word);
  if (stem === undefined) {
    if (stems.size >= STEMS_KEPT) stems.clear();
    stem = porterStem(word);
    stems.set(word, stem);
  }
  return stem;
}

/** The terms of a text, in order, repeats kept (their count is the term frequency). */
export function lexiconTerms(text: string): string[] {
  // Most text is ASCII: a plain pattern splits it several times faster than the Unicode one.
  const words = NON_ASCII.test(text) ? text.normalize("NFKD").replace(MARKS, "").toLowerCase().match(WORD) : text.toLowerCase().match(ASCII_WORD);
  return words ? words.map(stemOf) : [];
}
