/**
 * A file too large for one write transaction is written in chunks under an ingest job
 * (maintenance_jobs, kind "ingest"), whose state each chunk's transaction advances. A killed or
 * failed ingest leaves its job running: the same ingest again (same content, name, format, scope
 * and session) resumes it where its last chunk committed, so the file ends up in exactly once.
 */
import type { Database } from "bun:sqlite";
import { finishJob, listRunningJobs, saveJobState, startJob } from "../engine/jobs.ts";
import type { MaintenanceJobRow } from "../memory/types.ts";

export const INGEST_JOB = "ingest";
/** A running job not advanced for this long is taken to be interrupted (a live one commits a chunk every second or so). */
export const STALE_JOB_MS = 60_000;

/** What makes two ingests of a file the same ingest. */
export type IngestJobParams = { path: string; name: string; sha256: string; format: string; scope: string; session: string | null; episodes: number };
/** Episodes of the file gone through (stored or found stored), and the counts so far. */
export type IngestJobState = { done: number; inserted: number; duplicates: number; mentions: number };

export type IngestJob = { id: number; params: IngestJobParams; state: IngestJobState; resumed: boolean };

const sameIngest = (a: Record<string, unknown>, b: IngestJobParams) =>
  a.sha256 === b.sha256 && a.name === b.name && a.format === b.format && a.scope === b.scope && (a.session ?? null) === b.session;

const stateOf = (job: MaintenanceJobRow): IngestJobState => ({ done: 0, inserted: 0, duplicates: 0, mentions: 0, ...(job.state as Partial<IngestJobState>) });

/** The running job of this ingest (to resume), else a new one; the caller holds the write transaction. */
export function claimIngestJob(db: Database, params: IngestJobParams, now = Date.now()): IngestJob {
  const running = listRunningJobs(db, INGEST_JOB, params.scope).find((job) => sameIngest(job.params, params));
  if (running) return { id: running.id, params, state: stateOf(running), resumed: true };
  const state: IngestJobState = { done: 0, inserted: 0, duplicates: 0, mentions: 0 };
  return { id: startJob(db, { kind: INGEST_JOB, scope: params.scope, params, state }, now).id, params, state, resumed: false };
}

/** Records a committed chunk (in its transaction); the last one finishes the job. */
export function advanceIngestJob(db: Database, job: IngestJob, state: IngestJobState, last: boolean): void {
  if (last) finishJob(db, job.id, "done", state);
  else saveJobState(db, job.id, state);
}

export type UnfinishedIngest = { path: string; done: number; episodes: number; startedAt: number; updatedAt: number };

/** Ingest jobs that stopped (not advanced for STALE_JOB_MS): files partly stored until the same ingest is run again. */
export function listUnfinishedIngests(db: Database, now = Date.now()): UnfinishedIngest[] {
  return listRunningJobs(db, INGEST_JOB)
    .filter((job) => now - job.updatedAt >= STALE_JOB_MS)
    .map((job) => ({ path: String(job.params.path), done: stateOf(job).done, episodes: Number(job.params.episodes), startedAt: job.startedAt, updatedAt: job.updatedAt }));
}
