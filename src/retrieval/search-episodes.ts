/**
 * Hybrid episode search: FTS5 BM25, vec0 KNN over static vectors and over model vectors (where
 * present), fused by weighted Reciprocal Rank Fusion, boosted by session neighbours, filtered by
 * scope, time and mentioned entities. A tier without vectors simply adds no list.
 */
import type { Database } from "bun:sqlite";
import type { Store } from "../engine/store.ts";
import { GllamError } from "../engine/errors.ts";
import { scopeHasModelVectors } from "../engine/schema.ts";
import { parseScope } from "../memory/parse.ts";
import { embedOne, type Embedder, type EmbeddingTiers } from "../embed/embedder.ts";

// The tiers type lives with the embedders (the semantic layer uses it too); the library exports it from here.
export type { EmbeddingTiers };
import { readEpisodes } from "../episodic/episodes.ts";
import { rankByLexicon } from "../episodic/lexicon/rank.ts";
import { approximateEpisodeCount, bm25Episodes, episodeNeighbours, episodeSpeakers as speakersOf, filterEpisodeIds, hasFilter, listSpeakers, matchesMoreThan, termDocuments, type EpisodeFilter, type EpisodeLookups } from "../episodic/lookup.ts";
import { shareStaticKnn } from "../episodic/knn-beside.ts";
import { knnStaticEpisodes, staticTierState, type StaticTierState } from "../episodic/static-vectors.ts";
import { knnEpisodes, type EpisodeHit } from "../episodic/vectors.ts";
import { assertSameEmbeddingModel } from "../semantic/node-vectors.ts";
import { boostByNeighbours, boostBySpeaker, boostContenders, fuseReciprocalRanks, rankPositions, sortByScore, speakerFactors } from "./fusion.ts";
import { ftsMatchExpression, queryTerms, splitSpeakerTerms } from "./query-text.ts";

/** Fusion settings; the defaults were chosen on the benchmarks' dev split (bench/retrieval/tune.ts). */
export type SearchTuning = {
  rrfK: number;
  bm25Weight: number;
  /** Weight of a match in the previous turn of the session, against 1 for the turn itself (0: ignore). */
  contextWeight: number;
  /** Weight of the model tier's vectors (filled in the background). */
  denseWeight: number;
  /** Weight of the static tier's vectors (written at ingest) beside the model tier's. */
  staticWeight: number;
  /** Weight of the static tier when no model vectors take part (none configured, or not filled yet). */
  staticAloneWeight: number;
  neighbourWeight: number;
  /** Extra share of score for turns spoken by a speaker the query names. */
  speakerBoost: number;
  /** How many hits each retriever contributes before fusion. */
  candidates: number;
};

export const DEFAULT_TUNING: SearchTuning = {
  rrfK: 60,
  bm25Weight: 1,
  contextWeight: 0.5,
  denseWeight: 0.15,
  staticWeight: 0.15,
  // Alone, the static tier only breaks BM25's near-ties: more weight lets it push out good BM25 hits.
  staticAloneWeight: 0.03,
  neighbourWeight: 0.05,
  speakerBoost: 0.5,
  candidates: 100,
};

export type SearchEpisodesOptions = {
  scope?: string;
  k?: number;
  /** occurred_at within [start, end) */
  window?: { start?: number; end?: number };
  /** Only what had happened by then. */
  asOf?: number;
  /** Only episodes mentioning one of these node ids (the `mentioned_in` relation). */
  nodeIds?: string[];
  sessionId?: string;
  /** A query vector already computed by the caller (recall embeds once for nodes and episodes). */
  queryVector?: Float32Array;
  tuning?: Partial<SearchTuning>;
  /** Neighbours and speakers read by earlier searches with the same filter (a question's rounds), read again only where missing and added to. */
  lookups?: EpisodeLookups;
};

export type EpisodeSearchHit = {
  episodeId: number;
  sessionId: string;
  seq: number;
  kind: "turn" | "chunk";
  role: string;
  speaker: string;
  content: string;
  occurredAt: number | null;
  /** The fused score (higher is better). */
  score: number;
  /** 1-based ranks in each retriever's list; null where it did not return the episode. */
  bm25Rank: number | null;
  denseRank: number | null;
  staticRank: number | null;
  /** Cosine distance from the query, where the dense retriever returned it. */
  distance: number | null;
};

export type EpisodeSearchResult = {
  hits: EpisodeSearchHit[];
  terms: string[];
  /** Whether model vectors took part. */
  denseUsed: boolean;
  /** Whether static vectors took part, and why not when they did not. */
  staticUsed: boolean;
  staticState: StaticTierState | "off";
  /** The static tier's candidates (nearest first, filtered), before fusion: the router reads them as a vectors-only ranking. */
  staticIds: number[];
  /** The model tier's candidates the same way (none without model vectors). */
  denseIds: number[];
  /** Speakers the query names (their turns were preferred). */
  speakers: string[];
  embedMs: number;
  searchMs: number;
};

/** From this many episodes in the file on, words in more than COMMON_SHARE of them are left out of BM25. */
export const PRUNE_FROM_EPISODES = 50_000;
const COMMON_SHARE = 0.2;

/**
 * In a large file, the query words found in more than 20% of the episodes, left out while a rarer
 * word remains: their inverse document frequency adds little to any score, but BM25 ranks every
 * episode holding them (at 1M turns one such word costs ~60-80 ms). Measured on the 1M bench file
 * (100 dev LoCoMo questions, BM25 recall@10 on the evidence / p50 / p95): every word .467 / 101 /
 * 319 ms; 20% .467 / 95 / 207 ms; 10% .452 / 71 / 166 ms; 5% .435 / 42 / 111 ms. Smaller files
 * rank with every word, as before. A word's share is read from FTS5's term index (termDocuments).
 */
function dropCommonTerms(db: Database, terms: string[], withContext: boolean): string[] {
  if (terms.length < 2) return terms;
  const episodes = approximateEpisodeCount(db);
  if (episodes < PRUNE_FROM_EPISODES) return terms;
  const cap = Math.ceil(episodes * COMMON_SHARE);
  // The index's count of the word as written: a stemmed word (porter: "likely" is indexed as
  // "like") is not found there, and its matches are counted instead (up to the cap).
  const isCommon = (term: string) => {
    const documents = termDocuments(db, term);
    return documents > 0 ? documents > cap : matchesMoreThan(db, ftsMatchExpression([term], withContext)!, cap);
  };
  return keepRareTerms(terms, isCommon);
}

/**
 * The best episodes by BM25 over the words: a large scope's lexicon ranks every word's postings
 * (episodic/lexicon/); a filtered query, or a scope without one, is ranked by FTS5 (without the
 * common words, in a large file).
 */
function rankWords(db: Database, words: string[], filter: EpisodeFilter, limit: number, contextWeight: number): number[] {
  const withContext = contextWeight > 0;
  const all = ftsMatchExpression(words, withContext);
  if (!all) return [];
  const ranked = hasFilter(filter) ? undefined : rankByLexicon(db, filter.scope, words, all, limit, contextWeight);
  if (ranked) return ranked;
  const match = ftsMatchExpression(dropCommonTerms(db, words, withContext), withContext)!;
  return bm25Episodes(db, match, filter, limit, contextWeight).map((hit) => hit.episodeId);
}

/** The terms that are not common, or all of them when every one is. */
export function keepRareTerms(terms: string[], isCommon: (term: string) => boolean): string[] {
  const rare = terms.filter((term) => !isCommon(term));
  return rare.length > 0 ? rare : terms;
}

function buildFilter(options: SearchEpisodesOptions): EpisodeFilter {
  const end = [options.window?.end, options.asOf === undefined ? undefined : options.asOf + 1].filter((t): t is number => t !== undefined);
  return {
    scope: parseScope(options.scope),
    start: options.window?.start,
    end: end.length > 0 ? Math.min(...end) : undefined,
    nodeIds: options.nodeIds,
    sessionId: options.sessionId,
  };
}

/** Whether this embedder can search the scope's model vectors (same model, vectors exist in the scope). */
function canUseVectors(store: Store, embedder: Embedder, scope: string): boolean {
  if (!scopeHasModelVectors(store.dbRO(), scope)) return false;
  try {
    assertSameEmbeddingModel(store.dbRO(), embedder);
    return true;
  } catch (error) {
    if (error instanceof GllamError && error.code === "E_EMBEDDING_DRIFT") return false;
    throw error;
  }
}

/**
 * What the boosts read: the speakers (when the query names one) and neighbours of the candidates
 * that can still reach the top k (boostContenders, asked before and after reading the speakers), or
 * of every candidate and neighbour when a turn that is no candidate might reach it.
 */
function readBoostInputs(db: Database, fused: Map<number, number>, k: number, filter: EpisodeFilter, tuning: SearchTuning, named: string[], lookups?: EpisodeLookups) {
  const bySpeaker = named.length > 0 && tuning.speakerBoost !== 0;
  const speakers = new Map<number, string>();
  const readSpeakers = (ids: number[]) => {
    if (bySpeaker) for (const [id, speaker] of speakersOf(db, ids.filter((id) => !speakers.has(id)), lookups?.speakers)) speakers.set(id, speaker);
  };
  const factor = speakerFactors(speakers, named, tuning.speakerBoost);
  const contenders = (factorOf: (id: number) => number | undefined) => boostContenders(fused, k, tuning.neighbourWeight, factorOf, bySpeaker ? 1 + tuning.speakerBoost : 1);
  const reachable = contenders(() => (bySpeaker ? undefined : 1));
  readSpeakers(reachable ?? [...fused.keys()]);
  // With their speakers read, fewer may reach it.
  const ids = reachable && bySpeaker ? contenders((id) => (speakers.has(id) ? factor(id) : undefined)) : reachable;
  if (tuning.neighbourWeight === 0) return { neighbours: new Map<number, number[]>(), speakers };
  const neighbours = episodeNeighbours(db, ids ?? [...fused.keys()], filter, lookups?.neighbours);
  if (!ids) readSpeakers([...neighbours.keys()]);
  return { neighbours, speakers };
}

export async function searchEpisodes(store: Store, tiers: EmbeddingTiers, query: string, options: SearchEpisodesOptions = {}): Promise<EpisodeSearchResult> {
  const k = options.k ?? 10;
  if (!Number.isInteger(k) || k < 1 || k > 1000) throw new GllamError("E_BAD_INPUT", `k must be an integer in 1..1000, got ${k}`);
  const tuning = { ...DEFAULT_TUNING, ...options.tuning };
  const filter = buildFilter(options);
  const db = store.dbRO();
  const hasText = query.trim().length > 0;

  const started = performance.now();
  const model = tiers.model;
  const useDense = model !== undefined && tuning.denseWeight > 0 && canUseVectors(store, model, filter.scope) && hasText;
  const vector = useDense ? (options.queryVector ?? (await embedOne(model!, query))) : undefined;
  const staticState = tiers.static ? staticTierState(db, tiers.static) : "off";
  const staticWeight = vector ? tuning.staticWeight : tuning.staticAloneWeight;
  const staticVector = staticState === "ready" && staticWeight > 0 && hasText ? tiers.static!.embedSync([query])[0] : undefined;
  const embedded = performance.now();

  const terms = queryTerms(query);
  const split = splitSpeakerTerms(terms, listSpeakers(db, filter.scope));
  const words = split.contentTerms.length > 0 ? split.contentTerms : terms;
  // vec0 filters by scope only; other filters apply after KNN, so fetch more when they are set.
  const knnK = hasFilter(filter) ? Math.min(4096, tuning.candidates * 20) : tuning.candidates;
  // In a scope with cells the static KNN starts on the store's worker while BM25 runs here, and
  // this thread scans the cells it has not taken after BM25 (knn-beside.ts).
  const sharedStatic = staticVector ? shareStaticKnn(store, staticVector, knnK, filter.scope) : undefined;
  const bm25Ids = rankWords(db, words, filter, tuning.candidates, tuning.contextWeight);
  const keep = (hits: EpisodeHit[]) =>
    hasFilter(filter) ? filterEpisodeIds(db, hits.map((hit) => hit.episodeId), filter).slice(0, tuning.candidates) : hits.map((hit) => hit.episodeId);
  const dense = vector ? knnEpisodes(db, vector, knnK, filter.scope) : [];
  const denseIds = keep(dense);
  const staticIds = staticVector ? keep((await sharedStatic?.finish()) ?? knnStaticEpisodes(db, staticVector, knnK, filter.scope)) : [];
  const distances = new Map(dense.map((hit) => [hit.episodeId, hit.distance]));

  const fused = fuseReciprocalRanks(
    [
      { name: "bm25", weight: tuning.bm25Weight, ids: bm25Ids },
      { name: "dense", weight: tuning.denseWeight, ids: denseIds },
      { name: "static", weight: staticWeight, ids: staticIds },
    ],
    tuning.rrfK,
  );
  const { neighbours, speakers } = readBoostInputs(db, fused, k, filter, tuning, split.speakers, options.lookups);
  const boosted = boostBySpeaker(boostByNeighbours(fused, neighbours, tuning.neighbourWeight), speakers, split.speakers, tuning.speakerBoost);
  const top = sortByScore(boosted).slice(0, k);
  const bm25Ranks = rankPositions(bm25Ids);
  const denseRanks = rankPositions(denseIds);
  const staticRanks = rankPositions(staticIds);
  const hits = readEpisodes(store, top).map((episode) => ({
    episodeId: episode.id,
    sessionId: episode.sessionId,
    seq: episode.seq,
    kind: episode.kind,
    role: episode.role,
    speaker: episode.speaker,
    content: episode.content,
    occurredAt: episode.occurredAt,
    score: boosted.get(episode.id) ?? 0,
    bm25Rank: bm25Ranks.get(episode.id) ?? null,
    denseRank: denseRanks.get(episode.id) ?? null,
    staticRank: staticRanks.get(episode.id) ?? null,
    distance: distances.get(episode.id) ?? null,
  }));
  return { hits, terms, denseUsed: vector !== undefined, staticUsed: staticVector !== undefined, staticState, staticIds, denseIds, speakers: split.speakers, embedMs: embedded - started, searchMs: performance.now() - embedded };
}
