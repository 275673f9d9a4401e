/**
 * Rule-based intent classification, pure: which kinds of memory a query needs. A query may have
 * several intents ("why did X happen before Y" is causal and temporal); every query also gets
 * episodes, so "episodic" is the fallback rather than a rule.
 */
import { isStopWord } from "../retrieval/query-text.ts";

export const INTENTS = ["factual", "temporal", "procedural", "comparison", "causal", "verification", "recap", "relation"] as const;
export type Intent = (typeof INTENTS)[number];

export type QueryIntent = {
  intents: Intent[];
  /** The question word the query opens with (what, when, how...), if any. */
  interrogative: string | undefined;
  /** Names the query mentions: quoted phrases and capitalised words that do not open the sentence. */
  entities: string[];
};

const MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec";
const DATE_EXPRESSION = new RegExp(
  `\\b(\\d{4}-\\d{2}(-\\d{2})?|(19|20)\\d{2}|(${MONTHS})\\b|yesterday|today|tomorrow|tonight|(\\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|few|couple|several)\\s+(day|week|month|year)s?\\s+(ago|before|after|later|earlier)|(last|next|this|past)\\s+(week|month|year|weekend|summer|winter|spring|fall|autumn|monday|tuesday|wednesday|thursday|friday|saturday|sunday))`,
  "i",
);

/** One row per rule: the intent and what in the query signals it. The order is the order intents are reported. */
export const INTENT_RULES: readonly { intent: Intent; pattern: RegExp }[] = [
  { intent: "verification", pattern: /\b(is it true|is it the case|did .+ really|really\s+(true|the case)|confirm|verify|true or false|is that right)\b/i },
  { intent: "recap", pattern: /\b(what did (we|you|i) (discuss|talk|say|decide|agree)|what have we (discussed|talked)|remind me|recap|summar(y|ise|ize)|our (conversation|discussion|chat))\b/i },
  { intent: "procedural", pattern: /\b(how (do|does|did|can|could|should|would|to) (i|we|you|one|they|it)?\s*\w+|how to\b|steps? (to|for)\b|procedure|recipe|instructions?)\b/i },
  { intent: "causal", pattern: /\b(why|what (caused|made|led)|reason|because|cause of)\b/i },
  { intent: "comparison", pattern: /\b(compare[ds]?|comparison|versus|vs\.?|difference between|differ|better|worse|more .+ than|less .+ than|prefer|which (one|of))\b/i },
  { intent: "relation", pattern: /\b(how (is|are|was|were) .+ (related|connected|linked)|relat(ed|ion|ionship) (to|between)|connection between|in common)\b/i },
  {
    intent: "temporal",
    pattern: new RegExp(`(\\bwhen\\b|\\bhow long\\b|\\bwhat (year|month|day|date|time)\\b|\\b(before|after|since|until|first|earlier|later|ago|recently|lately)\\b|${DATE_EXPRESSION.source})`, "i"),
  },
];

const INTERROGATIVE = /^\s*(what|when|where|who|whom|whose|which|why|how|is|are|was|were|do|does|did|can|could|should|would|will|has|have|had)\b/i;
const QUESTION_WORDS = new Set(["what", "when", "where", "who", "whom", "whose", "which", "why", "how", "is", "are", "was", "were", "do", "does", "did", "can", "could", "should", "would", "will", "has", "have", "had", "i", "the"]);

/** Quoted phrases, then runs of capitalised words (not opening a sentence, not question or stop words). */
export function detectEntities(query: string): string[] {
  const found: string[] = [];
  // Double quotes anywhere; single quotes only around words (an apostrophe in "Ann's" opens nothing).
  for (const match of query.matchAll(/["“]([^"”]{2,60})["”]|(?:^|\s)['‘]([^'’]{2,60})['’](?=[\s?.!,;:]|$)/g)) found.push((match[1] ?? match[2])!.trim());
  const unquoted = query.replace(/["“][^"”]*["”]/g, " ");
  for (const sentence of unquoted.split(/[.?!;:]\s+|\n/)) {
    const words = sentence.split(/\s+/).filter(Boolean);
    let run: string[] = [];
    const flush = () => {
      if (run.length > 0) found.push(run.join(" "));
      run = [];
    };
    words.forEach((raw, i) => {
      const word = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "").replace(/['’]s$/u, "");
      const lower = word.toLowerCase();
      const capitalised = /^\p{Lu}/u.test(word) && !(i === 0 && (QUESTION_WORDS.has(lower) || isStopWord(lower)));
      if (capitalised && !QUESTION_WORDS.has(lower) && !DATE_EXPRESSION.test(word)) run.push(word);
      else flush();
      if (/[,()]$/.test(raw)) flush();
    });
    flush();
  }
  return [...new Set(found.filter((name) => name.length > 1))];
}

/** The query's intents by the rule table; "relation" also when two or more entities are named; "factual" for other questions. */
export function classifyIntent(query: string): QueryIntent {
  const entities = detectEntities(query);
  const intents = INTENT_RULES.filter((rule) => rule.pattern.test(query)).map((rule) => rule.intent);
  const interrogative = INTERROGATIVE.exec(query)?.[1]?.toLowerCase();
  if (!intents.includes("relation") && entities.length >= 2 && /\b(and|between|with)\b/i.test(query) && !intents.includes("comparison")) intents.push("relation");
  if (intents.length === 0 && (interrogative !== undefined || query.trim().endsWith("?"))) intents.push("factual");
  if (intents.length === 0) intents.push("recap");
  return { intents, interrogative, entities };
}

/** Runs of one to three words of the query, not all stop words: the phrases that may name an entity. */
export function queryPhrases(query: string, longest = 3): string[] {
  const words = query.split(/[^\p{L}\p{N}'’&.-]+/u).map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "").replace(/['’]s$/u, "")).filter(Boolean);
  const phrases: string[] = [];
  for (let n = longest; n >= 1; n--) {
    for (let i = 0; i + n <= words.length; i++) {
      const run = words.slice(i, i + n);
      if (run.some((w) => !isStopWord(w.toLowerCase()) && !QUESTION_WORDS.has(w.toLowerCase()))) phrases.push(run.join(" "));
    }
  }
  return [...new Set(phrases)];
}

/**
 * "What/which + plural noun + verb" ("What activities does Melanie partake in?", "Which European
 * countries has she been to?") and "what kinds/types of": a question that asks for a list, whose
 * answer is spread over many turns, so its context wants breadth (more, shorter turns) over
 * whole ones. Pure.
 */
const ENUMERATION = /^\s*(?:what|which)\s+(?:(?:kinds?|types?|sorts?)\s+of\s+|(?:\S+\s+){0,2}?\S+s\s+(?:do|does|did|has|have|had|is|are|was|were|would|might|could|can)\b)/i;

export function asksForList(query: string): boolean {
  return ENUMERATION.test(query);
}
