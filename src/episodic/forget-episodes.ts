/**
 * Removing episodes with everything derived from them: mentions, vectors of both tiers (and any
 * staged by an unfinished reembed), the vector queue (cascade), full-text rows and speakers
 * (triggers), the summaries of their session that cover them, and the full-text `context` of the
 * turn after each one (it was indexed with the forgotten turn's text). The caller holds the write
 * transaction and settles the semantic provenance first (links may cite the episodes).
 */
import type { Database } from "bun:sqlite";
import { deleteVectors } from "../engine/schema.ts";
import { readLexiconTurns, rewriteLexiconTurns } from "./lexicon/forget.ts";

export type RemovedEpisodes = {
  episodeVectors: number;
  mentions: number;
  summaries: number;
  /** Following turns whose full-text context was re-indexed without the forgotten text. */
  reindexed: number;
};

type Place = { id: number; scope: string; sessionId: string; seq: number; occurredAt: number | null };

export function removeEpisodes(db: Database, ids: readonly number[]): RemovedEpisodes {
  const removed = { episodeVectors: 0, mentions: 0, summaries: 0, reindexed: 0 };
  if (ids.length === 0) return removed;
  const list = JSON.stringify(ids);
  const places = db
    .query<Place, [string]>(
      "SELECT id, scope, session_id AS sessionId, seq, occurred_at AS occurredAt FROM episodes WHERE id IN (SELECT value FROM json_each(?))",
    )
    .all(list);
  // The lexicon's view of the forgotten turns and of the turn after each, before they change.
  const next = db.query<{ id: number }, [string, string, number]>("SELECT id FROM episodes WHERE scope = ? AND session_id = ? AND seq = ?");
  const lexicon = [...Map.groupBy(places, (place) => place.scope)].map(([scope, group]) =>
    readLexiconTurns(db, scope, group.flatMap((place) => [place.id, ...next.all(place.scope, place.sessionId, place.seq + 1).map((row) => row.id)])),
  );
  removed.mentions = db.query("DELETE FROM episode_mentions WHERE episode_id IN (SELECT value FROM json_each(?))").run(list).changes;
  const vectors = deleteVectors(db, "episodes", ids);
  removed.episodeVectors = vectors.model + vectors.static;
  // A summary of the session whose window holds the episode may repeat its words (no window: the whole session).
  const summaries = db.query(
    `DELETE FROM episodic_summaries WHERE scope = ?1 AND session_id = ?2
       AND (?3 IS NULL OR ((start_time IS NULL OR start_time <= ?3) AND (end_time IS NULL OR end_time >= ?3)))`,
  );
  for (const place of places) removed.summaries += summaries.run(place.scope, place.sessionId, place.occurredAt).changes;
  // episodes_fts and episode_speakers follow by trigger, episode_vector_queue by cascade.
  db.query("DELETE FROM episodes WHERE id IN (SELECT value FROM json_each(?))").run(list);
  // Setting content to itself fires episodes_fts_update, which indexes the next turn with its new
  // predecessor (none now), by the same rule as every insert.
  const touch = db.query<{ id: number }, [string, string, number]>("UPDATE episodes SET content = content WHERE scope = ? AND session_id = ? AND seq = ? RETURNING id");
  for (const place of places) removed.reindexed += touch.all(place.scope, place.sessionId, place.seq + 1).length;
  for (const turns of lexicon) rewriteLexiconTurns(db, turns);
  return removed;
}

/** The ids of a session's episodes; undefined when the session does not exist. */
export function sessionEpisodeIds(db: Database, scope: string, sessionId: string): number[] | undefined {
  if (!db.query("SELECT 1 FROM sessions WHERE scope = ? AND id = ?").get(scope, sessionId)) return undefined;
  return db
    .query<{ id: number }, [string, string]>("SELECT id FROM episodes WHERE scope = ? AND session_id = ? ORDER BY seq, id")
    .all(scope, sessionId)
    .map((row) => row.id);
}

/** Removes a session's own rows (after its episodes): its summaries, extraction checkpoints and the session. Returns the summaries removed. */
export function removeSessionRows(db: Database, scope: string, sessionId: string): number {
  const summaries = db.query("DELETE FROM episodic_summaries WHERE scope = ? AND session_id = ?").run(scope, sessionId).changes;
  db.query("DELETE FROM extracted_sessions WHERE scope = ? AND session_id = ?").run(scope, sessionId);
  db.query("DELETE FROM sessions WHERE scope = ? AND id = ?").run(scope, sessionId);
  return summaries;
}

/**
 * Rewrites the full-text index into one segment. FTS5 only marks deleted rows (tombstones) and
 * keeps their terms in its segments until they are merged; this is the merge that drops them.
 * Its cost grows with the whole index (README "What forget guarantees").
 */
export function purgeDeletedFromIndex(db: Database): void {
  db.run("INSERT INTO episodes_fts(episodes_fts) VALUES ('optimize')");
}
