/**
 * The episodic store (seed "Episodic"): conversation turns and document chunks in sessions. A batch
 * commits relationally first, in one transaction, with its FTS5 rows (triggers), its static
 * vectors and its place in the vector queue; model vectors come later from the worker pool.
 */
import type { Database } from "bun:sqlite";
import type { Store } from "../engine/store.ts";
import { GllamError } from "../engine/errors.ts";
import { selectByIds } from "../engine/sql.ts";
import { checkInput, parseInput, parseJsonColumn, parseScope } from "../memory/parse.ts";
import {
  EpisodeInputSchema,
  SessionInputSchema,
  type EpisodeInput,
  type EpisodeRow,
  type SessionInput,
  type SessionRow,
} from "../memory/types.ts";
import type { StaticEmbedder } from "../embed/static/static-embedder.ts";
import { linkEpisodeMentions } from "./mentions.ts";
import { selectAhead, writeStaticVectors, type StaticAhead } from "./static-vectors.ts";
import { maintainLexicon } from "./lexicon/build.ts";
import { keepTurnTerms } from "./lexicon/term-numbers.ts";

export type ParsedEpisode = ReturnType<typeof parseEpisode>;
export type ParsedSession = ReturnType<typeof parseSession>;
const parseEpisode = (input: EpisodeInput, where: string) => parseInput(EpisodeInputSchema, input, where);

/** An episode as it would be stored, or what is wrong with it (the schema's limits are the table's). */
export const checkEpisode = (input: unknown) => checkInput(EpisodeInputSchema, input);
export const checkSession = (input: unknown) => checkInput(SessionInputSchema, input);

/**
 * Identity of an episode for idempotent ingest: the same turn (session, position, speaker, text,
 * time) hashes the same however often it is ingested; the same words said twice do not.
 */
export function episodeContentHash(episode: Omit<ParsedEpisode, "scope" | "metadata" | "sourceId">): string {
  const key = JSON.stringify([episode.kind, episode.sessionId, episode.seq, episode.role, episode.speaker, episode.content, episode.occurredAt ?? null]);
  return new Bun.CryptoHasher("sha256").update(key).digest("hex");
}

export type AddEpisodesResult = {
  /** Ids of the episodes in input order (existing ids for duplicates). */
  ids: number[];
  inserted: number;
  duplicates: number;
  sessions: number;
  mentions: number;
};

export type AddEpisodesOptions = {
  /** Sessions to create or update first (title, dates); sessions named only by episodes are created bare. */
  sessions?: SessionInput[];
  /** Name for errors (a file name); items are reported as `where[i]`. */
  where?: string;
};

const EPISODE_COLUMNS = `id, scope, kind, session_id AS sessionId, seq, role, speaker, content, occurred_at AS occurredAt,
  source_id AS sourceId, metadata, content_hash AS contentHash, created_at AS createdAt`;

type RawEpisode = Omit<EpisodeRow, "metadata"> & { metadata: string };
const toEpisode = (row: RawEpisode): EpisodeRow => ({ ...row, metadata: parseJsonColumn(row.metadata, {}) });

/** Validates episodes (and their sessions) without writing; errors name `where[i]` and the field. */
export function parseEpisodes(inputs: EpisodeInput[], options: AddEpisodesOptions = {}): ParsedBatch {
  const where = options.where ?? "episodes";
  return {
    episodes: inputs.map((input, i) => parseEpisode(input, `${where}[${i}]`)),
    sessions: (options.sessions ?? []).map((input, i) => parseInput(SessionInputSchema, input, `${where} session ${i}`)),
  };
}
export type ParsedBatch = { episodes: ParsedEpisode[]; sessions: ParsedSession[] };

export type InsertEpisodesOptions = {
  now?: number;
  /** Gives the new episodes static vectors in the same transaction. */
  staticEmbedder?: StaticEmbedder;
  /**
   * The static vectors of the batch's episodes (episodeEmbeddingText, in batch order) and their
   * cells, computed ahead (embed-ahead.ts: in a worker while the writer wrote the chunk before);
   * without them the new episodes are embedded here.
   */
  staticAhead?: StaticAhead;
};

/**
 * Writes a validated batch; the caller holds the transaction. Kept free of savepoints: a nested
 * savepoint makes SQLite journal every row of the batch, which costs more than the insert itself.
 */
export function insertEpisodes(db: Database, batch: ParsedBatch, options: InsertEpisodesOptions = {}): AddEpisodesResult {
  const now = options.now ?? Date.now();
  for (const session of batch.sessions) upsertSession(db, session, now);
  const sessionKeys = new Set(batch.sessions.map((s) => `${s.scope}\u0000${s.id}`));
  const ensureSession = db.query("INSERT INTO sessions (scope, id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING");
  const insert = db.query<{ id: number }, [string, string, string, number, string, string, string, number | null, string | null, string, string, number]>(
    `INSERT INTO episodes (scope, kind, session_id, seq, role, speaker, content, occurred_at, source_id, metadata, content_hash, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (scope, session_id, seq, content_hash) DO NOTHING RETURNING id`,
  );
  const existing = db.query<{ id: number }, [string, string, number, string]>("SELECT id FROM episodes WHERE scope = ? AND session_id = ? AND seq = ? AND content_hash = ?");
  const ids: number[] = [];
  const fresh: { id: number; scope: string; speaker: string; content: string }[] = [];
  const freshIndexes: number[] = [];
  if (options.staticAhead && options.staticAhead.vectors.length !== batch.episodes.length) {
    throw new GllamError("E_INTERNAL", `${options.staticAhead.vectors.length} static vectors given for ${batch.episodes.length} episodes`);
  }
  for (const [i, episode] of batch.episodes.entries()) {
    const key = `${episode.scope}\u0000${episode.sessionId}`;
    if (!sessionKeys.has(key)) {
      ensureSession.run(episode.scope, episode.sessionId, now);
      sessionKeys.add(key);
    }
    const hash = episodeContentHash(episode);
    const row = insert.get(
      episode.scope, episode.kind, episode.sessionId, episode.seq, episode.role, episode.speaker, episode.content,
      episode.occurredAt ?? null, episode.sourceId ?? null, JSON.stringify(episode.metadata), hash, now,
    );
    if (row) {
      ids.push(row.id);
      fresh.push({ id: row.id, scope: episode.scope, speaker: episode.speaker, content: episode.content });
      freshIndexes.push(i);
    } else {
      ids.push(existing.get(episode.scope, episode.sessionId, episode.seq, hash)!.id);
    }
  }
  const mentions = linkEpisodeMentions(db, fresh);
  const ahead = options.staticAhead && selectAhead(options.staticAhead, freshIndexes);
  if (options.staticEmbedder) writeStaticVectors(db, options.staticEmbedder, fresh, ahead);
  if (ahead?.terms) keepTurnTerms(fresh, ahead.terms);
  if (fresh.length > 0) maintainLexicon(db, new Set(fresh.map((episode) => episode.scope)));
  return { ids, inserted: fresh.length, duplicates: batch.episodes.length - fresh.length, sessions: sessionKeys.size, mentions };
}

/**
 * Adds turns and chunks in one transaction: every input is validated before anything is written,
 * so a bad item leaves the database as it was. Re-adding an episode adds nothing.
 */
export function addEpisodes(store: Store, inputs: EpisodeInput[], options: AddEpisodesOptions & { staticEmbedder?: StaticEmbedder } = {}): AddEpisodesResult {
  const batch = parseEpisodes(inputs, options);
  return store.transaction(() => insertEpisodes(store.db(), batch, { staticEmbedder: options.staticEmbedder }));
}

function upsertSession(db: Database, session: ParsedSession, now: number): void {
  db.query(
    `INSERT INTO sessions (scope, id, title, started_at, ended_at, source_id, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (scope, id) DO UPDATE SET
       title = CASE WHEN excluded.title <> '' THEN excluded.title ELSE title END,
       started_at = coalesce(excluded.started_at, started_at),
       ended_at = coalesce(excluded.ended_at, ended_at),
       source_id = coalesce(excluded.source_id, source_id),
       metadata = json_patch(metadata, excluded.metadata)`,
  ).run(session.scope, session.id, session.title, session.startedAt ?? null, session.endedAt ?? null, session.sourceId ?? null, JSON.stringify(session.metadata), now);
}
const parseSession = (input: SessionInput) => parseInput(SessionInputSchema, input, "session");

/** Creates or updates one session (title, dates, metadata merged). */
export function saveSession(store: Store, input: SessionInput): void {
  const session = parseSession(input);
  store.transaction(() => upsertSession(store.db(), session, Date.now()));
}

export function readEpisodes(store: Store, ids: number[]): EpisodeRow[] {
  return selectByIds(store.dbRO(), EPISODE_COLUMNS, "episodes", ids, toEpisode);
}

const checkLimit = (limit: number) => {
  if (!Number.isInteger(limit) || limit < 1 || limit > 100_000) throw new GllamError("E_BAD_INPUT", `limit must be an integer in 1..100000, got ${limit}`);
};

/**
 * The most recent episodes of a scope (by when they happened, else when stored), newest first.
 * Two statements, not one with `? IS NULL OR`: each then has its index (idx_episodes_recent walks
 * the scope newest first and stops at the limit; a session is read whole by idx_episodes_session, which
 * the planner would pass over for the sorted index if not told).
 */
export function getRecentEpisodes(store: Store, limit: number, options: { scope?: string; sessionId?: string } = {}): EpisodeRow[] {
  checkLimit(limit);
  const db = store.dbRO();
  const order = "ORDER BY coalesce(occurred_at, created_at) DESC, id DESC LIMIT $limit";
  const params = { $scope: parseScope(options.scope), $limit: limit };
  const rows =
    options.sessionId === undefined
      ? db.query<RawEpisode, Record<string, string | number>>(`SELECT ${EPISODE_COLUMNS} FROM episodes WHERE scope = $scope ${order}`).all(params)
      : db
          .query<RawEpisode, Record<string, string | number>>(`SELECT ${EPISODE_COLUMNS} FROM episodes INDEXED BY idx_episodes_session WHERE scope = $scope AND session_id = $session ${order}`)
          .all({ ...params, $session: options.sessionId });
  return rows.map(toEpisode);
}

/** Episodes that happened in [start, end), oldest first (index-backed on scope, occurred_at). */
export function getEpisodesInWindow(store: Store, start: number, end: number, options: { scope?: string; limit?: number } = {}): EpisodeRow[] {
  if (!(end > start)) throw new GllamError("E_BAD_INPUT", `window end (${new Date(end).toISOString()}) must be after its start (${new Date(start).toISOString()})`);
  const limit = options.limit ?? 10_000;
  checkLimit(limit);
  return store
    .dbRO()
    .query<RawEpisode, [string, number, number, number]>(
      `SELECT ${EPISODE_COLUMNS} FROM episodes WHERE scope = ? AND occurred_at >= ? AND occurred_at < ? ORDER BY occurred_at, session_id, seq LIMIT ?`,
    )
    .all(parseScope(options.scope), start, end, limit)
    .map(toEpisode);
}

export type SessionSummary = SessionRow & { episodes: number; firstAt: number | null; lastAt: number | null };

/** Sessions of a scope with their dates and sizes, oldest first. */
export function listSessions(store: Store, options: { scope?: string } = {}): SessionSummary[] {
  type Raw = Omit<SessionSummary, "metadata"> & { metadata: string };
  return store
    .dbRO()
    .query<Raw, [string]>(
      `SELECT s.scope, s.id, s.title, s.started_at AS startedAt, s.ended_at AS endedAt, s.source_id AS sourceId, s.metadata,
              s.created_at AS createdAt, count(e.id) AS episodes, min(e.occurred_at) AS firstAt, max(e.occurred_at) AS lastAt
       FROM sessions s LEFT JOIN episodes e ON e.scope = s.scope AND e.session_id = s.id
       WHERE s.scope = ? GROUP BY s.scope, s.id ORDER BY coalesce(s.started_at, min(e.occurred_at), s.created_at), s.id`,
    )
    .all(parseScope(options.scope))
    .map((row) => ({ ...row, metadata: parseJsonColumn(row.metadata, {}) }));
}
