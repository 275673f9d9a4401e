/** Session summaries (seed: saveEpisodicSummary), searchable by window and session. */
import type { Store } from "../engine/store.ts";
import { parseInput, parseJsonColumn, parseScope } from "../memory/parse.ts";
import { EpisodicSummaryInputSchema, type EpisodicSummaryInput, type EpisodicSummaryRow } from "../memory/types.ts";

export function saveEpisodicSummary(store: Store, input: EpisodicSummaryInput): number {
  const summary = parseInput(EpisodicSummaryInputSchema, input, "summary");
  const db = store.db();
  return store.transaction(() => {
    db.query("INSERT INTO sessions (scope, id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING").run(summary.scope, summary.sessionId, Date.now());
    return db
      .query<{ id: number }, [string, string, string, number | null, number | null, string, number]>(
        `INSERT INTO episodic_summaries (scope, session_id, summary, start_time, end_time, metadata, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      )
      .get(summary.scope, summary.sessionId, summary.summary, summary.startTime ?? null, summary.endTime ?? null, JSON.stringify(summary.metadata), Date.now())!.id;
  });
}

/** Summaries of one session (by idx_episodic_summaries_session), or of every session of a scope, newest first. */
export function getEpisodicSummaries(store: Store, options: { scope?: string; sessionId?: string } = {}): EpisodicSummaryRow[] {
  const select = `SELECT id, scope, session_id AS sessionId, summary, start_time AS startTime, end_time AS endTime, metadata, created_at AS createdAt
       FROM episodic_summaries WHERE scope = $scope`;
  const order = "ORDER BY created_at DESC, id DESC";
  const db = store.dbRO();
  type Row = Omit<EpisodicSummaryRow, "metadata"> & { metadata: string };
  const scope = parseScope(options.scope);
  const rows =
    options.sessionId === undefined
      ? db.query<Row, Record<string, string>>(`${select} ${order}`).all({ $scope: scope })
      : db.query<Row, Record<string, string>>(`${select} AND session_id = $session ${order}`).all({ $scope: scope, $session: options.sessionId });
  return rows.map((row) => ({ ...row, metadata: parseJsonColumn(row.metadata, {}) }));
}
