/**
 * Turning a natural-language query into an FTS5 query: words, minus English stop words, each
 * quoted (so FTS5 syntax in user text is inert), joined by OR so BM25 ranks partial matches.
 */
import { tokenizeWords } from "../episodic/linker.ts";

// A standard English stop list (function words and question words); content words are kept.
const STOP_WORDS = new Set(
  `a about above after again against all am an and any are as at be because been before being below between both but by
  can could did do does doing down during each few for from further had has have having he her here hers herself him
  himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other
  our ours ourselves out over own same she should so some such than that the their theirs them themselves then there
  these they this those through to too under until up very was we were what when where which while who whom why will
  with would you your yours yourself yourselves s t don didn doesn isn wasn weren won ll ve re d m o y also ever
  much many something anything thing things get got kind`
    .split(/\s+/)
    .filter(Boolean),
);

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

/** Content words of a query, in order, without repeats; all words if every one is a stop word. */
export function queryTerms(query: string): string[] {
  const words = tokenizeWords(query).flatMap((word) => word.split(/['’.\-]/)).filter(Boolean);
  const content = words.filter((word) => !STOP_WORDS.has(word));
  return [...new Set(content.length > 0 ? content : words)];
}

/**
 * An FTS5 MATCH expression over what was said (and, withContext, the turn before) for the terms, or
 * undefined when there are none. Column-filtered so that names match what was said, not who said
 * it (speakers are handled apart).
 */
export function ftsMatchExpression(terms: string[], withContext: boolean): string | undefined {
  if (terms.length === 0) return undefined;
  return `{${withContext ? "content context" : "content"}} : (${terms.map((term) => `"${term.replaceAll('"', '""')}"`).join(" OR ")})`;
}

/**
 * Splits query terms into names of known speakers and the rest. A speaker's name says whose turns
 * to prefer; matched as a word it would rank every short greeting that names them ("Hi Ann!").
 */
export function splitSpeakerTerms(terms: string[], speakers: string[]): { speakerTerms: string[]; contentTerms: string[]; speakers: string[] } {
  const bySpeakerToken = new Map<string, string[]>();
  for (const speaker of speakers) {
    for (const token of tokenizeWords(speaker)) bySpeakerToken.set(token, [...(bySpeakerToken.get(token) ?? []), speaker]);
  }
  const speakerTerms = terms.filter((term) => bySpeakerToken.has(term));
  const named = new Set(speakerTerms.flatMap((term) => bySpeakerToken.get(term)!));
  return { speakerTerms, contentTerms: terms.filter((term) => !bySpeakerToken.has(term)), speakers: [...named] };
}
