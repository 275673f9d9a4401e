/**
 * routeAndAssemble: classify the query's intent (rules), pull what that intent needs from every
 * layer, and pack it into cited Markdown within a token budget, greedy by marginal value.
 */
import type { Store } from "../engine/store.ts";
import { GllamError } from "../engine/errors.ts";
import { latestEpisodeTime } from "../episodic/lookup.ts";
import { parseScope } from "../memory/parse.ts";
import type { SemanticNode } from "../memory/types.ts";
import { findNodesByName, findNodesByPhrases, readNodes } from "../semantic/nodes.ts";
import type { EmbeddingTiers } from "../retrieval/search-episodes.ts";
import { estimateTokens, packContext, renderSections, type ContextItem, type Section } from "./budget.ts";
import { resolveDateExpressions, type DateWindow } from "./dates.ts";
import { gatherEpisodes } from "./episodes.ts";
import { dateEventExpressions } from "./event-dates.ts";
import { formatContextHeader } from "./format.ts";
import { asksForList, classifyIntent, queryPhrases, type QueryIntent } from "./intent.ts";
import { refineIntent, type IntentClassifier, type IntentSource } from "./intent-llm.ts";
import { factItems, pathItems, procedureItems, timelineItems, type Focus, type KnowledgeOptions } from "./knowledge.ts";

export const DEFAULT_CONTEXT_BUDGET = 1500;
/** Longest episode text in a context; the budget's eighth when that is less (a long document chunk must not take the whole budget). */
const MAX_EPISODE_CHARS = 600;
/**
 * Longest turn in a context: a longer one keeps its sentences that share words with the query, and
 * the sentence after each (src/router/excerpt.ts). More turns then fit. On the dev sets 300 held
 * more evidence than 600 (LongMemEval_S .938 -> .966, LoCoMo .856 -> .861) and as many gold
 * answers verbatim; 150 held still more evidence turns but fewer answers (a cut answer is no answer).
 */
const EXCERPT_CHARS = 300;
/**
 * Graded compaction: a context's first items, one per FULL_ITEM_TOKENS of budget (10 at 1,500
 * tokens), keep their text (or 300-character excerpt); the turns after them are cut to
 * COMPACT_CHARS, their best sentences by the query's words, and the room left at the end restores
 * them (src/router/budget.ts packContext). A lower-ranked turn is in for the fact it holds; the
 * budget's tail then holds more distinct turns. On LoCoMo dev at 1,500 tokens: 10 whole and 120
 * characters held as many short gold answers as before (.464) and more evidence (.864 -> .881);
 * 80 characters held more evidence (.889) and fewer answers (.453). Scaled with the budget so a
 * larger one keeps more whole (3,000 tokens: 20 whole kept more answers than 10).
 */
const FULL_ITEM_TOKENS = 150;
const COMPACT_CHARS = 120;
/**
 * A compacted turn none of whose sentences has a query word is cut to 80 characters: it is in for
 * its neighbour, its session or its vector, and no sentence of it is known to hold the answer. On
 * LoCoMo dev at 1,500 tokens .9013 -> .9037, the same gold answers in the context.
 */
const UNMATCHED_COMPACT_CHARS = 80;
/**
 * A question asking for a list (`asksForList`: "What activities does Melanie partake in?") has
 * its answer spread over many turns: its context keeps one item whole per 1,500 tokens and cuts
 * the rest to 80 characters, so more distinct turns fit. On LoCoMo dev at 1,500 tokens (121 such
 * questions of 760; a handful in LongMemEval_S and BEAM, unchanged there): .886 -> .891 overall,
 * multi-hop .736 -> .756, gold answers in the context unchanged; 60 characters held more evidence
 * (.894) and fewer answers (.455).
 */
const LIST_FULL_ITEM_TOKENS = 1500;
const LIST_COMPACT_CHARS = 80;

export type RouteOptions = {
  /** Entity names (or ids, aliases) the caller says the query is about, beside those the query names. */
  entities?: string[];
  /** Tokens (estimated as characters / 4), default 1500. */
  budget?: number;
  scope?: string;
  /** Read facts as they held then, and only episodes up to it. */
  asOf?: number;
  /** Refines the rule-based intents (the FAST LLM when one is configured); failing, the rules answer. */
  intentClassifier?: IntentClassifier;
  /** Where the planner writes recipe-chain PDDL (null: nowhere). */
  pddlDomainsDir?: string | null;
  /** Who orders timelines: native (default, in process), fast-downward, or auto (Fast Downward when installed). */
  planner?: KnowledgeOptions["planner"];
};

export type AssembledItem = { key: string; section: Section; value: number; tokens: number; episodeId?: number };

export type AssembledContext = {
  query: string;
  scope: string;
  intent: QueryIntent;
  /** Who classified the intent: "rules" or the FAST model ("llm:NAME"), and why the model was not used when it failed. */
  intentSource: IntentSource;
  /** Date expressions of the query, resolved against the conversation's latest date ("two weeks before the trip": against the trip's date in memory). */
  dateWindows: DateWindow[];
  budget: number;
  /** Estimated tokens of `markdown` (characters / 4, rounded up per piece). */
  tokens: number;
  markdown: string;
  /** What went in, in decreasing value. */
  items: AssembledItem[];
  /** Candidates that did not fit or repeated text already in. */
  dropped: number;
  /** Episode searches run (the first, one per date window, the second round). */
  searches: number;
  /** Entities the caller named that have no node in the scope (capitalised words of the query may be none). */
  unresolvedEntities: string[];
  elapsedMs: number;
};

function checkBudget(budget: number): number {
  if (!Number.isInteger(budget) || budget < 100 || budget > 200_000) throw new GllamError("E_BAD_INPUT", `budget must be an integer in 100..200000 tokens, got ${budget}`);
  return budget;
}

/** The nodes the caller names and the query names (entities first), and the names that match none. */
function resolveFocus(store: Store, names: string[], scope: string): { named: SemanticNode[]; unresolved: string[] } {
  const named: SemanticNode[] = [];
  const unresolved: string[] = [];
  for (const name of names) {
    const node = findNodesByName(store, name, scope)[0];
    if (!node) unresolved.push(name);
    else if (!named.some((n) => n.id === node.id)) named.push(node);
  }
  return { named, unresolved };
}

/** One item per key, the most valuable. */
const uniqueByKey = (items: ContextItem[]) => [...new Map([...items].sort((a, b) => a.value - b.value).map((item) => [item.key, item])).values()];

export async function routeAndAssemble(store: Store, tiers: EmbeddingTiers, query: string, options: RouteOptions = {}): Promise<AssembledContext> {
  const started = performance.now();
  const text = query.trim();
  if (!text) throw new GllamError("E_BAD_INPUT", "query is empty");
  const budget = checkBudget(options.budget ?? DEFAULT_CONTEXT_BUDGET);
  const scope = parseScope(options.scope);
  const { intent, source: intentSource } = await refineIntent(text, classifyIntent(text), options.intentClassifier);
  const anchor = latestEpisodeTime(store.dbRO(), scope, options.asOf) ?? options.asOf ?? Date.now();
  const dateWindows = [...resolveDateExpressions(text, anchor), ...(await dateEventExpressions(store, tiers, text, { scope, asOf: options.asOf }))];
  const list = asksForList(text);
  const maxChars = Math.min(MAX_EPISODE_CHARS, Math.floor((budget * 4) / 8));

  const explicit = resolveFocus(store, options.entities ?? [], scope);
  const detected = findNodesByPhrases(store, [...intent.entities, ...queryPhrases(text)], scope);
  const named = [...explicit.named, ...detected.filter((n) => !explicit.named.some((e) => e.id === n.id))];
  const episodes = await gatherEpisodes(store, tiers, text, {
    scope,
    asOf: options.asOf,
    windows: dateWindows,
    maxChars,
    excerptChars: Math.min(EXCERPT_CHARS, maxChars),
    compactChars: Math.min(list ? LIST_COMPACT_CHARS : COMPACT_CHARS, maxChars),
    unmatchedChars: Math.min(list ? LIST_COMPACT_CHARS : COMPACT_CHARS, UNMATCHED_COMPACT_CHARS, maxChars),
    recap: intent.intents.includes("recap"),
    multiHop: intent.intents.includes("relation") || named.length >= 2,
  });
  const mentioned = readNodes(store, episodes.mentionedNodeIds.slice(0, 3), scope).filter((n) => !named.some((m) => m.id === n.id));
  const focus: Focus[] = [...named.map((node) => ({ node, named: true })), ...mentioned.map((node) => ({ node, named: false }))];
  const knowledge: KnowledgeOptions = { scope, asOf: options.asOf, intents: intent.intents, query: text, maxChars, pddlDomainsDir: options.pddlDomainsDir ?? null, planner: options.planner };
  const candidates = uniqueByKey([
    ...episodes.items,
    ...factItems(store, focus, knowledge),
    ...pathItems(store, named, knowledge),
    ...(await timelineItems(store, named, knowledge)),
    ...procedureItems(store, knowledge),
  ]);

  const header = formatContextHeader(text, intent, dateWindows, budget, options.intentClassifier ? intentSource.by : undefined);
  const { chosen } = packContext(candidates, budget, estimateTokens(header), { fullItems: Math.round(budget / (list ? LIST_FULL_ITEM_TOKENS : FULL_ITEM_TOKENS)) });
  // "Nothing matches" only when memory had nothing to offer (a budget too small for any item is not that).
  const body = candidates.length > 0 ? renderSections(chosen) : "\n_Nothing in memory matches this query._\n";
  const markdown = header + body;
  return {
    query: text,
    scope,
    intent,
    intentSource,
    dateWindows,
    budget,
    tokens: estimateTokens(markdown),
    markdown,
    items: chosen.map((item) => ({ key: item.key, section: item.section, value: Math.round(item.value * 1000) / 1000, tokens: estimateTokens(`${item.text}\n`), ...(item.episodeId === undefined ? {} : { episodeId: item.episodeId }) })),
    dropped: candidates.length - chosen.length,
    searches: episodes.searches,
    unresolvedEntities: explicit.unresolved,
    elapsedMs: Math.round((performance.now() - started) * 100) / 100,
  };
}
