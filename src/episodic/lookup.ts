/**
 * The episodic layer's reads for retrieval: BM25 over episodes_fts, filters (time window, as-of,
 * mentioned entities, session) and each episode's neighbours in its session.
 */
import type { Database } from "bun:sqlite";
import { runOnReader } from "../engine/connections.ts";

export type EpisodeFilter = {
  scope: string;
  /** occurred_at in [start, end) */
  start?: number;
  end?: number;
  /** Only episodes that mention one of these node ids. */
  nodeIds?: string[];
  sessionId?: string;
};

/**
 * The filter's conditions on the episodes aliased `e`, only those that are set: an `x IS NULL OR`
 * guard hides indexes from the planner, which then walked every episode of the scope. The scope
 * is a check (`+e.scope`), never the access path: every query here is driven by something
 * narrower (ids, an FTS match), and an index searched by the scope alone reads the whole scope.
 */
function filterSql(filter: EpisodeFilter): string {
  return [
    "+e.scope = $scope",
    filter.start !== undefined && "e.occurred_at >= $start",
    filter.end !== undefined && "e.occurred_at < $end",
    filter.sessionId !== undefined && "e.session_id = $session",
    filter.nodeIds !== undefined && "EXISTS (SELECT 1 FROM episode_mentions m WHERE m.episode_id = e.id AND m.node_id IN (SELECT value FROM json_each($nodes)))",
  ]
    .filter(Boolean)
    .join(" AND ");
}

function filterParams(filter: EpisodeFilter) {
  const params: Record<string, string | number> = { $scope: filter.scope };
  if (filter.start !== undefined) params.$start = filter.start;
  if (filter.end !== undefined) params.$end = filter.end;
  if (filter.sessionId !== undefined) params.$session = filter.sessionId;
  if (filter.nodeIds !== undefined) params.$nodes = JSON.stringify(filter.nodeIds);
  return params;
}

export const hasFilter = (filter: EpisodeFilter) =>
  filter.start !== undefined || filter.end !== undefined || filter.nodeIds !== undefined || filter.sessionId !== undefined;

/** The speaker names of a scope (kept by triggers in episode_speakers), for speaker-aware queries. */
export function listSpeakers(db: Database, scope: string): string[] {
  return db
    .query<{ speaker: string }, [string]>("SELECT speaker FROM episode_speakers WHERE scope = ?")
    .all(scope)
    .map((row) => row.speaker);
}

export type Bm25Hit = { episodeId: number; speaker: string; score: number };

/**
 * The best BM25 matches (FTS5's bm25 is lower-is-better; returned as is). contextWeight weighs
 * matches in the turn before against matches in the turn itself (1).
 *
 * With only the scope to check, FTS5 ranks alone first and the LIMIT sits inside it: joining
 * every match to its episode row before ranking cost ~45% of the query at 100K episodes (a
 * common word matches ~10% of them). Twice the limit is ranked, then checked against the scope;
 * when too few are in the scope (a file shared by scopes), the ranked join answers instead.
 */
export function bm25Episodes(db: Database, match: string, filter: EpisodeFilter, limit: number, contextWeight: number): Bm25Hit[] {
  const params = { $match: match, $limit: limit, $contextWeight: contextWeight, ...filterParams(filter) };
  if (!hasFilter(filter)) {
    const hits = db
      .query<Bm25Hit & { inScope: number }, Record<string, string | number | null>>(
        `SELECT e.id AS episodeId, e.speaker, ranked.score, e.scope = $scope AS inScope
         FROM (SELECT rowid, bm25(episodes_fts, 1.0, 0.0, $contextWeight) AS score FROM episodes_fts
               WHERE episodes_fts MATCH $match ORDER BY score LIMIT 2 * $limit) AS ranked
         CROSS JOIN episodes e ON e.id = ranked.rowid
         ORDER BY ranked.score`,
      )
      .all(params);
    const kept = hits.filter((hit) => hit.inScope).slice(0, limit);
    // Every match was ranked, or enough of the best are in the scope: the ranked join would find the same.
    if (kept.length === limit || hits.length < 2 * limit) return kept.map(({ episodeId, speaker, score }) => ({ episodeId, speaker, score }));
  }
  return db
    .query<Bm25Hit, Record<string, string | number | null>>(
      `SELECT e.id AS episodeId, e.speaker, bm25(episodes_fts, 1.0, 0.0, $contextWeight) AS score
       FROM episodes_fts JOIN episodes e ON e.id = episodes_fts.rowid
       WHERE episodes_fts MATCH $match AND ${filterSql(filter)}
       ORDER BY score LIMIT $limit`,
    )
    .all(params);
}

/** About how many episodes the file holds (the highest id: O(1), forgotten ones still counted). */
export function approximateEpisodeCount(db: Database): number {
  return db.query<{ n: number | null }, []>("SELECT max(id) AS n FROM episodes").get()?.n ?? 0;
}

/** Reader connections that have the temp fts5vocab table over episodes_fts. */
const withTermCounts = new WeakSet<Database>();

/**
 * How many episodes hold a word, in any column (fts5vocab's per-term document count, read from the
 * index: ~0.2 ms at 1M episodes where counting a common word's matches took ~1-10 ms). The vocab
 * table is a temp one, made once per connection: it stores nothing and the file is not touched.
 */
export function termDocuments(db: Database, term: string): number {
  if (!withTermCounts.has(db)) {
    runOnReader(db, () => db.run("CREATE VIRTUAL TABLE IF NOT EXISTS temp.episode_terms USING fts5vocab(main, episodes_fts, row)"));
    withTermCounts.add(db);
  }
  return db.query<{ doc: number }, [string]>("SELECT doc FROM temp.episode_terms WHERE term = ?").get(term)?.doc ?? 0;
}

/**
 * Whether more than `cap` episodes match an FTS5 expression, counting no further than cap + 1
 * (reading part of a doclist is cheap next to ranking it with BM25).
 */
export function matchesMoreThan(db: Database, match: string, cap: number): boolean {
  return db.query<{ n: number }, [string, number]>("SELECT count(*) AS n FROM (SELECT 1 FROM episodes_fts WHERE episodes_fts MATCH ? LIMIT ?)").get(match, cap + 1)!.n > cap;
}

/** The ids among `ids` that pass the filter, in the given order. */
export function filterEpisodeIds(db: Database, ids: number[], filter: EpisodeFilter): number[] {
  if (ids.length === 0) return [];
  const kept = new Set(
    db
      .query<{ id: number }, Record<string, string | number | null>>(`SELECT e.id FROM episodes e WHERE e.id IN (SELECT value FROM json_each($ids)) AND ${filterSql(filter)}`)
      .all({ $ids: JSON.stringify(ids), ...filterParams(filter) })
      .map((row) => row.id),
  );
  return ids.filter((id) => kept.has(id));
}

/** Each episode's neighbours read so far under one filter, and each one's speaker: what several searches of one question share (their candidates overlap). */
export type EpisodeLookups = { neighbours: Map<number, number[]>; speakers: Map<number, string> };

export const newEpisodeLookups = (): EpisodeLookups => ({ neighbours: new Map(), speakers: new Map() });

/**
 * For each episode, the turns right before and after it in its session (symmetric, both ways).
 * With `known` (the same filter's earlier answers), only the episodes not in it are read, and they
 * are added to it.
 */
export function episodeNeighbours(db: Database, ids: number[], filter: EpisodeFilter, known: Map<number, number[]> = new Map()): Map<number, number[]> {
  const adjacency = new Map<number, number[]>();
  if (ids.length === 0) return adjacency;
  const missing = [...new Set(ids.filter((id) => !known.has(id)))];
  if (missing.length > 0) {
    const pairs = db
      .query<{ id: number; neighbour: number }, Record<string, string | number | null>>(
        // CROSS JOIN keeps the candidates outside: each then finds its two neighbours by (scope, session, seq).
        `SELECT c.id, e.id AS neighbour FROM episodes c
         CROSS JOIN episodes e ON e.scope = c.scope AND e.session_id = c.session_id AND e.seq IN (c.seq - 1, c.seq + 1)
         WHERE c.id IN (SELECT value FROM json_each($ids)) AND ${filterSql(filter)}`,
      )
      .all({ $ids: JSON.stringify(missing), ...filterParams(filter) });
    for (const id of missing) known.set(id, []);
    for (const { id, neighbour } of pairs) known.get(id)!.push(neighbour);
  }
  const add = (a: number, b: number) => {
    const list = adjacency.get(a) ?? [];
    if (!list.includes(b)) list.push(b);
    adjacency.set(a, list);
  };
  for (const id of ids) {
    for (const neighbour of known.get(id)!) {
      add(id, neighbour);
      add(neighbour, id);
    }
  }
  return adjacency;
}

/** Who spoke each of the episodes (with `known`, only those not in it are read, and added to it). */
export function episodeSpeakers(db: Database, ids: number[], known: Map<number, string> = new Map()): Map<number, string> {
  const missing = ids.filter((id) => !known.has(id));
  if (missing.length > 0) {
    const rows = db.query<{ id: number; speaker: string }, [string]>("SELECT id, speaker FROM episodes WHERE id IN (SELECT value FROM json_each(?))").all(JSON.stringify(missing));
    for (const row of rows) known.set(row.id, row.speaker);
  }
  return new Map(ids.flatMap((id) => (known.has(id) ? [[id, known.get(id)!] as const] : [])));
}

/** The latest occurred_at of the scope's episodes up to `until` (the conversation's "now"), or undefined. */
export function latestEpisodeTime(db: Database, scope: string, until?: number): number | undefined {
  const row = db.query<{ at: number | null }, [string, number | null]>("SELECT max(occurred_at) AS at FROM episodes WHERE scope = ? AND (?2 IS NULL OR occurred_at <= ?2)").get(scope, until ?? null);
  return row?.at ?? undefined;
}

/**
 * Up to `count` of the scope's latest turns' contents, one in every `every` of them, newest first
 * (idx_episodes_recent), cut to `chars` characters: texts a warm-up recall can ask.
 */
export function recentEpisodeTexts(db: Database, scope: string, count: number, every: number, chars: number): string[] {
  const rows = db.query<{ content: string }, [string, number]>("SELECT content FROM episodes WHERE scope = ? ORDER BY coalesce(occurred_at, created_at) DESC LIMIT ?").all(scope, count * every);
  return rows.filter((_, i) => i % every === 0).map((row) => row.content.slice(0, chars));
}
