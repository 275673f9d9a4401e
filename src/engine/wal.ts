import type { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import * as v from "valibot";
import { GllamError } from "./errors.ts";

export const CheckpointModeSchema = v.picklist(["PASSIVE", "FULL", "RESTART", "TRUNCATE"]);
export type CheckpointMode = v.InferOutput<typeof CheckpointModeSchema>;

export type CheckpointResult = {
  /** true when a reader or writer kept the checkpoint from finishing (SQLITE_BUSY). */
  busy: boolean;
  /** Frames in the WAL file. */
  logPages: number;
  /** Frames copied back into the database file. */
  checkpointedPages: number;
};

export function checkpointWAL(db: Database, mode: CheckpointMode = "PASSIVE"): CheckpointResult {
  const parsed = v.safeParse(CheckpointModeSchema, typeof mode === "string" ? mode.toUpperCase() : mode);
  if (!parsed.success) {
    throw new GllamError("E_BAD_INPUT", `checkpoint mode must be PASSIVE, FULL, RESTART or TRUNCATE, got ${String(mode)}`);
  }
  const row = db.query<{ busy: number; log: number; checkpointed: number }, []>(`PRAGMA wal_checkpoint(${parsed.output})`).get();
  return { busy: row?.busy === 1, logPages: row?.log ?? 0, checkpointedPages: row?.checkpointed ?? 0 };
}

export function walSizeBytes(dbPath: string): number {
  try {
    return statSync(`${dbPath}-wal`).size;
  } catch {
    return 0;
  }
}

export type WALCheckpointManager = {
  stop(): void;
  /** Checkpoints now (as the timer would); skipped, returning undefined, inside a transaction. */
  tick(): CheckpointResult | undefined;
  /** Checkpoints run so far, and the last result (for stats and tests). */
  readonly runs: number;
  readonly last: CheckpointResult | undefined;
};

/** A WAL past this size is truncated by the checkpoint manager; one that stays past it means checkpoints cannot finish. */
export const WAL_TRUNCATE_ABOVE_BYTES = 64 * 1024 * 1024;

export type WALCheckpointOptions = {
  /** Above this WAL size a TRUNCATE checkpoint shrinks the file; below it PASSIVE never blocks anyone. */
  truncateAboveBytes?: number;
};

/**
 * Keeps the WAL bounded during bulk writes: every interval, when no transaction is open on the
 * writer, it checkpoints. The timer is unref'd, so it never keeps a process alive.
 */
export function startWALCheckpointManager(
  db: Database,
  dbPath: string,
  intervalMs: number,
  options: WALCheckpointOptions = {},
): WALCheckpointManager {
  if (!Number.isFinite(intervalMs) || intervalMs < 10) {
    throw new GllamError("E_BAD_INPUT", `checkpoint interval must be at least 10 ms, got ${intervalMs}`);
  }
  const truncateAbove = options.truncateAboveBytes ?? WAL_TRUNCATE_ABOVE_BYTES;
  const state = { runs: 0, last: undefined as CheckpointResult | undefined };
  const tick = () => {
    if (db.inTransaction) return undefined;
    state.last = checkpointWAL(db, walSizeBytes(dbPath) > truncateAbove ? "TRUNCATE" : "PASSIVE");
    state.runs++;
    return state.last;
  };
  // In the background a failed checkpoint (the file closed under a command abandoned midway) stops
  // the manager: a throw in a timer would end the process.
  const timer = setInterval(() => {
    try {
      tick();
    } catch {
      clearInterval(timer);
    }
  }, intervalMs);
  timer.unref();
  return {
    stop: () => clearInterval(timer),
    tick,
    get runs() {
      return state.runs;
    },
    get last() {
      return state.last;
    },
  };
}
