/**
 * The episodes a query needs, as context items with values: the hybrid search's hits, hits inside
 * the query's date windows (boosted), a round with the words nearest the query's in the static
 * space (a category's members: "countries" -> spain), a second round from what the first hits mention (entities in
 * episode_mentions and their graph neighbours, and the first hits' own distinctive words), the
 * turns next to strong hits (an answer often follows the question it answers), and the summaries
 * of the sessions the hits come from.
 */
import type { Store } from "../engine/store.ts";
import { readEpisodes } from "../episodic/episodes.ts";
import { episodeNeighbours, episodeSpeakers, matchesMoreThan, newEpisodeLookups, type EpisodeLookups } from "../episodic/lookup.ts";
import { tokenizeWords } from "../episodic/linker.ts";
import { porterStem } from "../episodic/lexicon/porter.ts";
import type { StaticEmbedder } from "../embed/static/static-embedder.ts";
import { ftsMatchExpression, isStopWord } from "../retrieval/query-text.ts";
import type { EpisodeRow } from "../memory/types.ts";
import { nodesMentionedBy } from "../episodic/mentions.ts";
import { getEpisodicSummaries } from "../episodic/summaries.ts";
import { readNodes } from "../semantic/nodes.ts";
import { activeLinks } from "../semantic/links.ts";
import { DEFAULT_TUNING, searchEpisodes, type EmbeddingTiers, type EpisodeSearchHit, type EpisodeSearchResult, type SearchTuning } from "../retrieval/search-episodes.ts";
import type { ContextItem } from "./budget.ts";
import type { DateWindow } from "./dates.ts";
import { excerptsOf, queryScorer } from "./excerpt.ts";
import { expansionTerms } from "./expansion.ts";
import { knownPart, nearestWordsOfEach, wordSpaceOf } from "./word-space.ts";
import { episodeGroup, episodeGroupId, formatEpisodeLine, formatSummaryLine, type EpisodeLine } from "./format.ts";

/** How the rounds weigh against the first; chosen on LoCoMo dev as general settings, not per question type. */
export const EPISODE_WEIGHTS = {
  /** Hits of the first round. */
  first: 60,
  /** Hits inside a date window the query names: a search restricted to it, and a boost of first-round hits in it. */
  window: 20,
  windowBoost: 1.3,
  /** The second round (the query plus what the first hits mention). */
  second: 40,
  secondWeight: 0.6,
  /** How many first hits seed the second round and the neighbours. */
  seeds: 8,
  neighbourHits: 25,
  neighbourShare: 0.45,
  /**
   * The turns two away from the strongest hits (in a two-party conversation, the same speaker's
   * turn before and after: a speaker goes on about what they said after the other's reply), worth
   * this share of their anchor. LoCoMo dev at 1,500 tokens .9050 -> .9211 (conversations 1-3 .9103
   * -> .9282, 4-5 .8996 -> .9139; shares .25-.7 rise to .55-.6 and fall after; 5 anchors .9112 at
   * .45, 25 anchors .9223 at .55 but a gold answer fewer at 3,000 tokens); LongMemEval_S, BEAM and
   * 20 haystacks in one database unchanged. Above the adjacent turns' share: raising that instead
   * (.55) read .9072.
   */
  farNeighbourHits: 10,
  farNeighbourShare: 0.55,
  summaryShare: 0.5,
  /** The first search's vector candidates ranked alone (no words): turns that say it in other words; their weight against the first round. */
  semantic: 40,
  semanticWeight: 0.85,
  semanticSpeakerBoost: 1,
  /**
   * The model tier's vector candidates ranked alone the same way (where the scope has model
   * vectors): the model places "kickboxing" near "martial arts", which the static words do not.
   */
  modelSemanticWeight: 0.7,
  /**
   * A lexical round with the query and the words nearest its rarest content words in the static
   * space (src/router/word-space.ts): turns that hold a member of a category the question names
   * ("countries": spain, sweden). The nearWords nearest (pooled over the query's nearTerms rarest
   * words, a centred cosine of at least nearFloor) that the file says. LoCoMo dev at 1,500 tokens,
   * alone: .881 -> .885 (8 per word; floor .45: .886, but BEAM lost a question); with the list
   * compaction of route.ts: 8 per word .891, 10 in all .892, 6 in all .893, 4 in all .891. Three
   * words: as much evidence as all of them, a third of the scanning on long questions.
   */
  near: 20,
  nearWeight: 0.6,
  nearTerms: 3,
  nearWords: 6,
  nearFloor: 0.55,
  /** Each episode gains this share of its session's score (best episode, then the next at sessionDecay^i): evidence clusters in matching sessions. 0.1 helped on both dev sets; 0.4 helped LoCoMo and hurt LongMemEval. */
  sessionBoost: 0.1,
  sessionDecay: 0.5,
  /** Search settings over recall's defaults. */
  search: {} as Partial<SearchTuning>,
};

export type EpisodeGatherOptions = {
  scope: string;
  asOf?: number;
  windows: DateWindow[];
  /** Longest summary line. */
  maxChars: number;
  /** Longest episode line: a longer turn is compacted to its query-relevant sentences. */
  excerptChars: number;
  /** Longest episode line past the context's first items (graded compaction, `packContext`). */
  compactChars: number;
  /** The same for a turn none of whose sentences has a query word. */
  unmatchedChars: number;
  recap: boolean;
  multiHop: boolean;
};
export type GatheredEpisodes = { items: ContextItem[]; mentionedNodeIds: string[]; searches: number };

/** Each hit's fused score over the list's best: 1 for the top hit. */
const normalised = (hits: EpisodeSearchHit[]) => {
  const top = hits[0]?.score ?? 1;
  return hits.map((hit) => ({ hit, value: top > 0 ? hit.score / top : 0 }));
};

export async function gatherEpisodes(store: Store, tiers: EmbeddingTiers, query: string, options: EpisodeGatherOptions): Promise<GatheredEpisodes> {
  const W = EPISODE_WEIGHTS;
  // The rounds without a date window search under one filter (scope, as of): each episode's neighbours and speaker are read once.
  const lookups = newEpisodeLookups();
  const base = { scope: options.scope, asOf: options.asOf, tuning: W.search };
  const values = new Map<number, number>();
  const rows = new Map<number, EpisodeLine>();
  const offer = (hit: EpisodeLine, value: number) => {
    rows.set(hit.episodeId, hit);
    values.set(hit.episodeId, Math.max(values.get(hit.episodeId) ?? 0, value));
  };
  let searches = 1;
  const firstSearch = await searchEpisodes(store, tiers, query, { ...base, k: W.first, lookups });
  const first = firstSearch.hits;
  const inWindow = (at: number | null) => at !== null && options.windows.some((w) => at >= w.start && at < w.end);
  for (const { hit, value } of normalised(first)) offer(hit, inWindow(hit.occurredAt) ? value * W.windowBoost : value);
  // Later rounds are lexical: a vector search is most of a search's time at 10,000 turns.
  const lexical = { ...base, tuning: { ...W.search, staticWeight: 0, staticAloneWeight: 0, denseWeight: 0 } };
  for (const window of options.windows) {
    searches++;
    const hits = (await searchEpisodes(store, tiers, query, { ...lexical, k: W.window, window })).hits;
    for (const { hit, value } of normalised(hits)) offer(hit, value * W.windowBoost * 0.8);
  }
  for (const { hit, value } of vectorRanking(store, firstSearch, firstSearch.staticIds, lookups)) offer(hit, value * W.semanticWeight);
  if (W.modelSemanticWeight > 0) for (const { hit, value } of vectorRanking(store, firstSearch, firstSearch.denseIds, lookups)) offer(hit, value * W.modelSemanticWeight);
  const near = tiers.static ? nearTerms(store, tiers.static, firstSearch) : [];
  if (near.length > 0) {
    searches++;
    const hits = (await searchEpisodes(store, tiers, `${query} ${near.join(" ")}`, { ...lexical, k: W.near, lookups })).hits;
    for (const { hit, value } of normalised(hits)) offer(hit, value * W.nearWeight);
  }
  const seeds = first.slice(0, W.seeds).map((hit) => hit.episodeId);
  const mentionedNodeIds = nodesMentionedBy(store.dbRO(), seeds);
  // The second round runs when the graph names what the first hits mention, or the question joins
  // several things; the first hits' shared words alone added nothing on the dev sets (and cost a search).
  const names = [...graphNames(store, mentionedNodeIds, options)];
  const extra = names.length > 0 || options.multiHop ? expansionTerms(query, first.slice(0, W.seeds).map((hit) => hit.content), names) : [];
  if (extra.length > 0) {
    searches++;
    const hits = (await searchEpisodes(store, tiers, `${query} ${extra.join(" ")}`, { ...lexical, k: W.second, lookups })).hits;
    for (const { hit, value } of normalised(hits)) offer(hit, value * W.secondWeight);
  }

  addNeighbours(store, options, values, rows, lookups);
  boostBySession(values, rows);
  const scorer = queryScorer(query);
  const items: ContextItem[] = [...rows.values()].map((e) => {
    const excerpt = excerptsOf(e.content, scorer);
    return {
      key: `episode:${e.episodeId}`,
      section: "episodes",
      group: episodeGroup(e),
      groupId: episodeGroupId(e),
      text: formatEpisodeLine(e, excerpt(options.excerptChars).text),
      compact: formatEpisodeLine(e, excerpt(options.compactChars, options.unmatchedChars).text),
      dedup: e.content,
      value: values.get(e.episodeId)!,
      order: (e.occurredAt ?? 0) + e.seq + e.episodeId / 1e9,
      episodeId: e.episodeId,
    };
  });
  return { items: [...items, ...summaryItems(store, options, rows, values)], mentionedNodeIds, searches };
}

/**
 * The words of the static table nearest the query's rarest content words (speakers' names aside)
 * that some episode of the file says, other than the query's words and the words of the same
 * Porter stem (BM25 finds those already; "reacted" for "reaction" it does not, so it stays).
 */
function nearTerms(store: Store, embedder: StaticEmbedder, search: EpisodeSearchResult): string[] {
  const speakerWords = new Set(search.speakers.flatMap((speaker) => tokenizeWords(speaker)));
  const space = wordSpaceOf(embedder);
  const own = new Set(search.terms);
  // The rarest few (a word's row is its rank in the frequency list): a frequent word's neighbours
  // are diffuse ("like", "think"), and each word scanned costs a pass over the space.
  const terms = search.terms
    .filter((term) => space.rowOf.has(term) && !speakerWords.has(term))
    .sort((a, b) => space.rowOf.get(b)! - space.rowOf.get(a)!)
    .slice(0, EPISODE_WEIGHTS.nearTerms);
  const db = store.dbRO();
  const said = (word: string) => matchesMoreThan(db, ftsMatchExpression([word], false)!, 0);
  // Pooled over the query's words, best first: the nearest few are better company than each word's share.
  const nearest = nearestWordsOfEach(space, terms, { count: EPISODE_WEIGHTS.nearWords * 3, floor: EPISODE_WEIGHTS.nearFloor });
  const pool = terms.flatMap((term, i) => nearest[i]!.map((near) => ({ ...near, term })));
  pool.sort((a, b) => b.similarity - a.similarity);
  const near = new Set<string>();
  // A word the table does not know has no neighbours; a known word it starts or ends with stands in
  // ("mentorship" -> "mentors", "destress" -> "stress": Porter stems neither to the other).
  for (const term of search.terms) {
    if (space.rowOf.has(term) || speakerWords.has(term) || !/^[a-z]{7,}$/.test(term)) continue;
    const part = knownPart(term, (word) => space.rowOf.has(word) && !isStopWord(word) && porterStem(word) !== porterStem(term) && said(word));
    if (part !== undefined) near.add(part);
  }
  for (const { word, term } of pool) {
    if (near.size >= EPISODE_WEIGHTS.nearWords) break;
    if (!own.has(word) && !near.has(word) && porterStem(word) !== porterStem(term) && said(word)) near.add(word);
  }
  return [...near];
}

/**
 * The first search's vector candidates (static or model) as a ranking of their own (turns that say it in other
 * words, whatever their BM25): reciprocal rank, the named speakers' turns preferred, the best at 1.
 */
function vectorRanking(store: Store, search: EpisodeSearchResult, candidates: number[], lookups: EpisodeLookups): { hit: EpisodeLine; value: number }[] {
  const ids = candidates.slice(0, EPISODE_WEIGHTS.semantic);
  if (ids.length === 0) return [];
  const speakers = new Set(search.speakers);
  const speakerOf = episodeSpeakers(store.dbRO(), ids, lookups.speakers);
  const scores = new Map(ids.map((id, i) => [id, (1 / (DEFAULT_TUNING.rrfK + i + 1)) * (speakers.has(speakerOf.get(id) ?? "") ? 1 + EPISODE_WEIGHTS.semanticSpeakerBoost : 1)]));
  const top = Math.max(...scores.values());
  return readEpisodes(store, ids).map((row) => ({ hit: lineOf(row), value: scores.get(row.id)! / top }));
}

const lineOf = (row: EpisodeRow): EpisodeLine => ({ episodeId: row.id, sessionId: row.sessionId, seq: row.seq, speaker: row.speaker, role: row.role, content: row.content, occurredAt: row.occurredAt });

/** Adds to each episode a share of its session's score (its best episodes, decaying): evidence clusters in the sessions that match. */
function boostBySession(values: Map<number, number>, rows: Map<number, EpisodeLine>): void {
  const bySession = new Map<string, number[]>();
  for (const [id, value] of values) {
    const session = rows.get(id)!.sessionId;
    bySession.set(session, [...(bySession.get(session) ?? []), value]);
  }
  const sessionScore = new Map([...bySession].map(([session, list]) => [session, list.sort((a, b) => b - a).reduce((sum, v, i) => sum + v * EPISODE_WEIGHTS.sessionDecay ** i, 0)]));
  for (const [id, value] of values) values.set(id, value + EPISODE_WEIGHTS.sessionBoost * sessionScore.get(rows.get(id)!.sessionId)!);
}

/** The names of the nodes the first hits mention and of their neighbours in the graph. */
function graphNames(store: Store, nodeIds: string[], options: EpisodeGatherOptions): Set<string> {
  const names = new Set<string>();
  const focus = nodeIds.slice(0, 5);
  const neighbourIds = focus.flatMap((id) => activeLinks(store, id, { scope: options.scope, asOf: options.asOf }).map((l) => (l.sourceId === id ? l.targetId : l.sourceId)));
  for (const node of readNodes(store, [...new Set([...focus, ...neighbourIds.slice(0, 10)])], options.scope)) names.add(node.name);
  return names;
}

/** The turns right before and after the strongest hits, and those two away from the very strongest, worth a share of their anchor. */
function addNeighbours(store: Store, options: EpisodeGatherOptions, values: Map<number, number>, rows: Map<number, EpisodeLine>, lookups: EpisodeLookups): void {
  const W = EPISODE_WEIGHTS;
  const anchors = [...values.entries()].sort((a, b) => b[1] - a[1]).slice(0, W.neighbourHits);
  // The searches' filter without a window (scope, as of), so their neighbours serve here too.
  const filter = { scope: options.scope, end: options.asOf === undefined ? undefined : options.asOf + 1 };
  const adjacency = episodeNeighbours(store.dbRO(), anchors.map(([id]) => id), filter, lookups.neighbours);
  const offered = new Map<number, number>();
  const offer = (id: number, share: number) => {
    if (share > (values.get(id) ?? 0) && share > (offered.get(id) ?? 0)) offered.set(id, share);
  };
  for (const [id, value] of anchors) for (const n of adjacency.get(id) ?? []) offer(n, value * W.neighbourShare);
  // The next ring out: the neighbours of the strongest anchors' neighbours (adjacency is symmetric, so the anchor and its ring are skipped).
  const strongest = anchors.slice(0, W.farNeighbourHits);
  const ring = episodeNeighbours(store.dbRO(), strongest.flatMap(([id]) => adjacency.get(id) ?? []), filter, lookups.neighbours);
  for (const [id, value] of strongest) {
    const near = new Set(adjacency.get(id) ?? []);
    for (const n of near) for (const far of ring.get(n) ?? []) if (far !== id && !near.has(far)) offer(far, value * W.farNeighbourShare);
  }
  const missing = [...offered.keys()].filter((id) => !rows.has(id));
  for (const row of readEpisodes(store, missing)) rows.set(row.id, lineOf(row));
  for (const [id, value] of offered) if (rows.has(id)) values.set(id, Math.max(values.get(id) ?? 0, value));
}

/** Summaries of the sessions the best episodes come from, worth a share of the session's best episode. */
function summaryItems(store: Store, options: EpisodeGatherOptions, rows: Map<number, EpisodeLine>, values: Map<number, number>): ContextItem[] {
  const sessions = new Map<string, number>();
  for (const [id, row] of rows) sessions.set(row.sessionId, Math.max(sessions.get(row.sessionId) ?? 0, values.get(id) ?? 0));
  const top = [...sessions.entries()].sort((a, b) => b[1] - a[1]).slice(0, 10);
  const share = options.recap ? 1 : EPISODE_WEIGHTS.summaryShare;
  return top.flatMap(([sessionId, value]) =>
    getEpisodicSummaries(store, { scope: options.scope, sessionId }).map((summary) => ({
      key: `summary:${summary.id}`,
      section: "summaries" as const,
      text: formatSummaryLine(summary, options.maxChars),
      value: value * share,
      order: summary.startTime ?? summary.createdAt,
    })),
  );
}
