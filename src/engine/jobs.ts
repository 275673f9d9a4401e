/**
 * maintenance_jobs: where resumable background work got to. A job is written in the same
 * transaction as the work it records, so after a crash its state is exactly what was committed.
 */
import type { Database } from "bun:sqlite";
import type { MaintenanceJobRow } from "../memory/types.ts";
import { parseJsonColumn } from "../memory/parse.ts";

type JobRow = Omit<MaintenanceJobRow, "params" | "state"> & { params: string; state: string };

const JOB_COLUMNS = `id, kind, scope, params, state, status, started_at AS startedAt, updated_at AS updatedAt, finished_at AS finishedAt`;

const toJob = (row: JobRow): MaintenanceJobRow => ({
  ...row,
  params: parseJsonColumn<Record<string, unknown>>(row.params, {}),
  state: parseJsonColumn<Record<string, unknown>>(row.state, {}),
});

export function startJob(db: Database, job: { kind: string; scope: string; params: Record<string, unknown>; state?: Record<string, unknown> }, now = Date.now()): MaintenanceJobRow {
  const row = db
    .query<JobRow, [string, string, string, string, number, number]>(
      `INSERT INTO maintenance_jobs (kind, scope, params, state, started_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING ${JOB_COLUMNS}`,
    )
    .get(job.kind, job.scope, JSON.stringify(job.params), JSON.stringify(job.state ?? {}), now, now)!;
  return toJob(row);
}

/** Jobs of a kind (any kind without one) still marked running (interrupted, or running in another process), oldest first. */
export function listRunningJobs(db: Database, kind?: string, scope?: string): MaintenanceJobRow[] {
  return db
    .query<JobRow, [string | null, string | null]>(
      `SELECT ${JOB_COLUMNS} FROM maintenance_jobs WHERE (?1 IS NULL OR kind = ?1) AND status = 'running' AND (?2 IS NULL OR scope = ?2) ORDER BY id`,
    )
    .all(kind ?? null, scope ?? null)
    .map(toJob);
}

export function saveJobState(db: Database, id: number, state: Record<string, unknown>, now = Date.now()): void {
  db.query("UPDATE maintenance_jobs SET state = ?, updated_at = ? WHERE id = ?").run(JSON.stringify(state), now, id);
}

export function finishJob(db: Database, id: number, status: "done" | "failed", state: Record<string, unknown>, now = Date.now()): void {
  db.query("UPDATE maintenance_jobs SET status = ?, state = ?, updated_at = ?, finished_at = ? WHERE id = ?").run(status, JSON.stringify(state), now, now, id);
}

export function readJob(db: Database, id: number): MaintenanceJobRow | undefined {
  const row = db.query<JobRow, [number]>(`SELECT ${JOB_COLUMNS} FROM maintenance_jobs WHERE id = ?`).get(id);
  return row ? toJob(row) : undefined;
}

/** The last finished job of a kind in a scope (its state is its report), if any. */
export function readLastFinishedJob(db: Database, kind: string, scope: string): MaintenanceJobRow | undefined {
  const row = db
    .query<JobRow, [string, string]>(`SELECT ${JOB_COLUMNS} FROM maintenance_jobs WHERE kind = ? AND scope = ? AND status != 'running' ORDER BY finished_at DESC, id DESC LIMIT 1`)
    .get(kind, scope);
  return row ? toJob(row) : undefined;
}
