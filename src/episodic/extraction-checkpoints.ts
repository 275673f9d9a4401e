/**
 * Extraction checkpoints (`extracted_sessions`) and the turns extraction reads. A session is marked
 * in the transaction that writes its facts, so a run killed at any moment leaves each session
 * either fully extracted and marked, or untouched.
 */
import type { Store } from "../engine/store.ts";
import { escapeLike } from "../engine/sql.ts";
import { parseJsonColumn } from "../memory/parse.ts";

export type ExtractableSession = {
  id: string;
  title: string;
  startedAt: number | null;
  sourceId: string | null;
  metadata: Record<string, unknown>;
  turns: number;
  extracted: boolean;
};

/** Sessions of a scope (ids starting with `prefix`, when given) with their size and whether any extractor did them, oldest first. */
export function listExtractableSessions(store: Store, scope: string, prefix = ""): ExtractableSession[] {
  type Raw = Omit<ExtractableSession, "metadata" | "extracted"> & { metadata: string; extracted: number };
  return store
    .dbRO()
    .query<Raw, [string, string]>(
      `SELECT s.id, s.title, coalesce(s.started_at, (SELECT min(occurred_at) FROM episodes e WHERE e.scope = s.scope AND e.session_id = s.id)) AS startedAt,
              s.source_id AS sourceId, s.metadata,
              (SELECT count(*) FROM episodes e WHERE e.scope = s.scope AND e.session_id = s.id) AS turns,
              EXISTS (SELECT 1 FROM extracted_sessions x WHERE x.scope = s.scope AND x.session_id = s.id) AS extracted
       FROM sessions s WHERE s.scope = ?1 AND s.id LIKE ?2 ESCAPE '\\'
       ORDER BY coalesce(s.started_at, s.created_at), s.id`,
    )
    .all(scope, `${escapeLike(prefix)}%`)
    .map((row) => ({ ...row, metadata: parseJsonColumn(row.metadata, {}), extracted: row.extracted === 1 }));
}

export type SessionTurn = { id: number; seq: number; speaker: string; role: string; content: string; occurredAt: number | null; sourceId: string | null };

/** A session's turns and chunks in order. */
export function readSessionTurns(store: Store, scope: string, sessionId: string): SessionTurn[] {
  return store
    .dbRO()
    .query<SessionTurn, [string, string]>(
      `SELECT id, seq, speaker, role, content, occurred_at AS occurredAt, source_id AS sourceId
       FROM episodes WHERE scope = ? AND session_id = ? ORDER BY seq, id`,
    )
    .all(scope, sessionId);
}

/** Whether the session is marked extracted, read on the writer (inside the transaction that would mark it). */
export function isSessionExtracted(store: Store, scope: string, sessionId: string): boolean {
  return store.db().query("SELECT 1 FROM extracted_sessions WHERE scope = ? AND session_id = ?").get(scope, sessionId) !== null;
}

export function markSessionExtracted(store: Store, mark: { scope: string; sessionId: string; extractor: string; nodeCount: number; linkCount: number; at: number }): void {
  store
    .db()
    .query(
      `INSERT INTO extracted_sessions (scope, session_id, extractor, node_count, link_count, extracted_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (scope, session_id, extractor) DO UPDATE SET node_count = excluded.node_count, link_count = excluded.link_count, extracted_at = excluded.extracted_at`,
    )
    .run(mark.scope, mark.sessionId, mark.extractor, mark.nodeCount, mark.linkCount, mark.at);
}

/** Removes every extractor's mark of the session (its output is removed in the same transaction). */
export function unmarkSessionExtracted(store: Store, scope: string, sessionId: string): void {
  store.db().query("DELETE FROM extracted_sessions WHERE scope = ? AND session_id = ?").run(scope, sessionId);
}
