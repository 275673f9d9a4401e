/**
 * Compacting a long turn to its query-relevant sentences, pure. Most of a turn's length is rarely
 * what answers the question, and each turn that fits more is another chance to hold the evidence:
 * a long turn keeps the sentences sharing the most words with the query (the first sentence when
 * none does), in their order, up to the limit; an ellipsis marks each cut.
 */
import { queryTerms } from "../retrieval/query-text.ts";
import { clip } from "./format.ts";

export type Excerpt = { text: string; compacted: boolean };

/** Counts the query's words a sentence has: each as a word start, a long word by its first letters ("camping" finds "camped"). */
export type SentenceScorer = (sentence: string) => number;

export function queryScorer(query: string): SentenceScorer {
  const patterns = queryTerms(query).map((term) => new RegExp(`\\b${(term.length >= 6 ? term.slice(0, term.length - 2) : term).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "i"));
  return (sentence) => patterns.reduce((count, pattern) => count + (pattern.test(sentence) ? 1 : 0), 0);
}

/** The text on one line: a turn's line breaks as spaces (the pattern is tried only where there is one: most turns have none, and it costs at every character). */
const flatten = (text: string) => (text.includes("\n") ? text.replace(/\s*\n\s*/g, " ") : text);

export function splitSentences(text: string): string[] {
  return flatten(text)
    .split(/(?<=[.!?…])\s+(?=\S)/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * The text whole when it fits in `max` characters; else its best sentences (by shared query words)
 * that fit, in order. A text none of whose sentences has a query word is held to `unmatchedMax`
 * (default `max`): no sentence of it is known to answer, its opening points to the turn.
 */
export function excerptFor(text: string, score: SentenceScorer, max: number, unmatchedMax = max): Excerpt {
  return excerptsOf(text, score)(max, unmatchedMax);
}

/**
 * excerptFor of one text at several lengths (a turn's line and its compact line): the text is
 * flattened, split and its sentences scored once, on the first length that needs them.
 */
export function excerptsOf(text: string, score: SentenceScorer): (max: number, unmatchedMax?: number) => Excerpt {
  const flat = flatten(text).trim();
  let split: { sentences: string[]; ranked: RankedSentence[] } | undefined;
  return (max, unmatchedMax = max) => {
    if (flat.length <= Math.min(max, unmatchedMax)) return { text: flat, compacted: false };
    if (!split) {
      const sentences = splitSentences(flat);
      split = { sentences, ranked: sentences.map((sentence, i) => ({ sentence, i, score: score(sentence) })).sort((a, b) => b.score - a.score || a.i - b.i) };
    }
    return excerptOfSentences(flat, split.sentences, split.ranked, split.ranked[0]!.score === 0 ? unmatchedMax : max);
  };
}

/** A sentence, its place in the text and its score: the text's sentences best first, ties in order. */
type RankedSentence = { sentence: string; i: number; score: number };

function excerptOfSentences(flat: string, sentences: string[], ranked: RankedSentence[], max: number): Excerpt {
  if (flat.length <= max) return { text: flat, compacted: false };
  const kept: { sentence: string; i: number }[] = [];
  let length = 0;
  for (const candidate of ranked) {
    const cost = candidate.sentence.length + 2;
    if (kept.length > 0 && (candidate.score === 0 || length + cost > max)) continue;
    kept.push(candidate);
    length += cost;
  }
  // Then the sentence after each kept one, where it fits: what a matching sentence introduces often follows it ("I got promoted! I'm now...").
  for (const { i } of [...kept]) {
    const next = sentences[i + 1];
    if (next === undefined || kept.some((k) => k.i === i + 1) || length + next.length + 2 > max) continue;
    kept.push({ sentence: next, i: i + 1 });
    length += next.length + 2;
  }
  kept.sort((a, b) => a.i - b.i);
  let out = "";
  kept.forEach(({ sentence, i }, k) => {
    const gap = k === 0 ? i > 0 : i > kept[k - 1]!.i + 1;
    out += `${gap ? "… " : k > 0 ? " " : ""}${sentence}`;
  });
  const last = kept[kept.length - 1]!.i;
  const excerpt = clip(`${out}${last < sentences.length - 1 ? " …" : ""}`, max);
  return { text: excerpt, compacted: true };
}
