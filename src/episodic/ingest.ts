/**
 * `gllam ingest` in two passes over the files, each streamed (memory does not grow with a file):
 * 1. every file is read and every record checked against the episode schema, nothing written, so
 *    a bad record fails the command before any file is stored (or, with skipBad, is listed);
 * 2. each file is written in transactions of CHUNK episodes, so other writers wait at most one
 *    chunk. A file of one chunk is all-or-nothing by its transaction; a larger one is written under
 *    an ingest job (ingest-jobs.ts) that the same ingest resumes after a kill or a failure.
 */
import { basename, resolve } from "node:path";
import * as v from "valibot";
import { describeError, GllamError } from "../engine/errors.ts";
import type { Store } from "../engine/store.ts";
import type { WALCheckpointManager } from "../engine/wal.ts";
import { ScopeSchema } from "../memory/types.ts";
import type { StaticEmbedder } from "../embed/static/static-embedder.ts";
import { startEmbedAhead, type EmbedAhead } from "./embed-ahead.ts";
import { selectAhead, type StaticAhead } from "./static-vectors.ts";
import { checkEpisode, checkSession, insertEpisodes, parseEpisodes, type ParsedBatch, type ParsedEpisode, type ParsedSession } from "./episodes.ts";
import { openSource, statSourceFile, type FileIdentity, type ReadSourceOptions, type Source } from "./formats/read-source.ts";
import type { BadRecord, FormatName, IngestUnit } from "./formats/source.ts";
import { fileBlocks } from "./formats/text-lines.ts";
import { advanceIngestJob, claimIngestJob, listUnfinishedIngests, type IngestJob, type IngestJobState, type UnfinishedIngest } from "./ingest-jobs.ts";

/** Episodes per write transaction: about half a second of work, the longest another writer waits (smaller chunks rewrite the indexes more often). */
export const CHUNK = 5000;
/**
 * The writer's page cache during an ingest, in KiB (SQLite's negative cache_size). The engine's
 * 256 MiB cache serves graph walks; an ingest mostly appends, and with it memory would grow by that
 * much whatever the file's size. Measured appending 30K turns to the scale bench's 1M file when the
 * episodes' identity was a unique (scope, content_hash) index, which took each turn at a random leaf
 * (89 MB of it at 1M): 32 MiB read 11 pages per turn back from the file, 64 MiB 3.7, 128 MiB 3.0.
 * Keyed by session now (idx_episodes_session), a chunk's turns share its leaves.
 */
const INGEST_CACHE_KIB = 64 * 1024;
/**
 * The WAL an ingest lets grow before a checkpoint: 256 MiB, SQLite's auto-checkpoint threshold in
 * pages of the file (65,536 of 4 KiB, 16,384 of 16 KiB) and where the ingest's own checkpoint
 * manager truncates. At the default 1,000 pages every chunk's commit (~10,000 4 KiB pages at 1M
 * episodes) was checkpointed at once, so a page dirtied by two chunks (an index leaf, a vec0 chunk
 * being filled, an FTS5 segment) went to the file twice; 9% fewer bytes written at 1M with 64 MiB,
 * and at 256 MiB 35 KB written per turn instead of 58, the writer's thread 9-18% faster
 * (bench/scale/append-file.ts at 1M, 4 KiB pages).
 */
export const INGEST_WAL_BYTES = 256 * 1024 * 1024;
/** Bad records listed per file (all are counted). */
const MAX_LISTED_BAD = 1000;

export type FileIngestReport = {
  path: string;
  format: FormatName;
  /** Episodes in the file (those skipped as bad not counted). */
  episodes: number;
  /** Stored by this run; duplicates were stored already. */
  inserted: number;
  duplicates: number;
  mentions: number;
  /** The first MAX_LISTED_BAD bad records (skipBad), and how many there were. */
  bad: BadRecord[];
  badCount: number;
  /** Episodes an interrupted earlier run of this ingest had gone through (0 when not resumed). */
  resumedAt: number;
};
export type IngestReport = {
  files: FileIngestReport[];
  episodes: number;
  inserted: number;
  duplicates: number;
  seconds: number;
  /** Other files whose ingest stopped part-way (see ingest-jobs.ts): run it again to finish them. */
  unfinished: UnfinishedIngest[];
};
export type IngestProgress = (done: number, total: number, file: string) => void;

export type IngestFileOptions = ReadSourceOptions & {
  /** List bad records and keep the rest, instead of failing on the first. */
  skipBad?: boolean;
};
export type IngestOptions = IngestFileOptions & {
  /** Checkpointed after every file (within a file SQLite's auto-checkpoint keeps the WAL under INGEST_WAL_BYTES plus a chunk). */
  walCheckpoints?: Pick<WALCheckpointManager, "tick">;
  /** Gives new episodes static vectors in their chunk's transaction. */
  staticEmbedder?: StaticEmbedder;
};
/** What writeFile takes besides: the worker computing static vectors ahead (ingestFiles starts it for an ingest of more than a chunk). */
type WriteFileOptions = IngestOptions & { embedAhead?: EmbedAhead };

type ValidRecord = { session: ParsedSession } | { episode: ParsedEpisode };

/** A source's records checked against the schemas: a bad one fails, or with skipBad goes to onBad and is left out. */
function* validRecords(source: Source, skipBad: boolean, onBad: (bad: BadRecord) => void = () => {}): Generator<ValidRecord> {
  const report = (where: string, problem: string) => {
    if (!skipBad) throw new GllamError("E_BAD_INPUT", `${where}: ${problem}`);
    onBad({ where, problem });
  };
  for (const record of source.records()) {
    if ("problem" in record) {
      report(record.where, record.problem);
    } else if ("session" in record) {
      const checked = checkSession(record.session);
      if (checked.ok) yield { session: checked.value };
      else report(record.where, `session: ${checked.problem}`);
    } else {
      const checked = checkEpisode(record.episode);
      if (checked.ok) yield { episode: checked.value };
      else report(record.where, checked.problem);
    }
  }
}

export type CollectedSource = { format: FormatName; sessions: ParsedSession[]; episodes: ParsedEpisode[]; bad: BadRecord[] };

/** Every record of a source, checked as ingest checks them, held in memory (small sources: tests, fuzzing). */
export function collectSource(source: Source, skipBad = false): CollectedSource {
  const collected: CollectedSource = { format: "text", sessions: [], episodes: [], bad: [] };
  for (const record of validRecords(source, skipBad, (bad) => collected.bad.push(bad))) {
    if ("session" in record) collected.sessions.push(record.session);
    else collected.episodes.push(record.episode);
  }
  collected.format = source.format!;
  return collected;
}

/** What pass 1 learnt about a file. */
type CheckedFile = { path: string; format: FormatName; identity: FileIdentity; sha256: string; episodes: number; bad: BadRecord[]; badCount: number };

/** A turn of the event loop: timers (the WAL checkpoint manager's) and progress output run. */
const breathe = () => new Promise((resolve) => setImmediate(resolve));

/** Pass 1: reads a file through, checking every record and hashing the bytes; writes nothing. */
async function checkFile(path: string, options: IngestFileOptions): Promise<CheckedFile> {
  const identity = statSourceFile(path);
  const hasher = new Bun.CryptoHasher("sha256");
  const source = openSource(path, function* () {
    for (const block of fileBlocks(path)) {
      hasher.update(block);
      yield block;
    }
  }, options);
  const bad: BadRecord[] = [];
  let badCount = 0;
  let episodes = 0;
  for (const record of validRecords(source, options.skipBad === true, (record) => badCount++ < MAX_LISTED_BAD && bad.push(record))) {
    if ("episode" in record && ++episodes % CHUNK === 0) await breathe();
  }
  return { path, format: source.format!, identity, sha256: hasher.digest("hex"), episodes, bad, badCount };
}

/** Pass 2: writes a checked file chunk by chunk (under a job when it takes more than one). */
async function writeFile(store: Store, file: CheckedFile, options: WriteFileOptions, onChunk: (episodes: number) => void): Promise<FileIngestReport> {
  const now = statSourceFile(file.path);
  if (now.size !== file.identity.size || now.mtimeMs !== file.identity.mtimeMs) {
    throw new GllamError("E_BAD_INPUT", `${file.path} changed while it was being ingested; nothing from it was written (run the ingest again)`);
  }
  const db = store.db();
  const job: IngestJob | undefined =
    file.episodes > CHUNK
      ? store.transaction(() =>
          claimIngestJob(db, {
            path: resolve(file.path),
            name: basename(file.path),
            sha256: file.sha256,
            format: file.format,
            scope: v.parse(ScopeSchema, options.scope),
            session: options.session ?? null,
            episodes: file.episodes,
          }),
        )
      : undefined;
  const resumedAt = job?.state.done ?? 0;
  const state: IngestJobState = { ...(job?.state ?? { done: 0, inserted: 0, duplicates: 0, mentions: 0 }) };
  const counts = { inserted: 0, duplicates: 0, mentions: 0 };
  // A full chunk goes to the embedding worker (options.embedAhead) at once and is written after the
  // chunk before it: the worker computes its static vectors while the writer writes that one.
  type Chunk = { batch: ParsedBatch; seen: number; staticAhead?: Promise<StaticAhead | undefined> };
  let batch: ParsedBatch = { sessions: [], episodes: [] };
  let seen = 0;
  let pending: Chunk | undefined;
  const send = (): Chunk => {
    const chunk = { batch, seen, staticAhead: batch.episodes.length > 0 ? options.embedAhead?.embed(db, [batch]) : undefined };
    batch = { sessions: [], episodes: [] };
    return chunk;
  };
  const commit = async (chunk: Chunk, last: boolean) => {
    if (chunk.batch.episodes.length === 0 && chunk.batch.sessions.length === 0 && !(last && job)) return;
    const staticAhead = await chunk.staticAhead;
    store.transaction(() => {
      const result = insertEpisodes(db, chunk.batch, { staticEmbedder: options.staticEmbedder, staticAhead });
      counts.inserted += result.inserted;
      counts.duplicates += result.duplicates;
      counts.mentions += result.mentions;
      Object.assign(state, { done: chunk.seen, inserted: state.inserted + result.inserted, duplicates: state.duplicates + result.duplicates, mentions: state.mentions + result.mentions });
      if (job) advanceIngestJob(db, job, state, last);
    });
    onChunk(chunk.batch.episodes.length);
  };
  const source = openSource(file.path, () => fileBlocks(file.path), options);
  try {
    // Bad records were listed by pass 1; here they are only left out.
    for (const record of validRecords(source, options.skipBad === true)) {
      if ("session" in record) batch.sessions.push(record.session);
      else if (++seen > resumedAt) batch.episodes.push(record.episode);
      if (batch.episodes.length >= CHUNK) {
        const full = send();
        if (pending) await commit(pending, false);
        pending = full;
        await breathe();
      }
    }
    const final = send();
    if (pending) await commit(pending, false);
    await commit(final, true);
  } catch (error) {
    if (!job || !(error instanceof GllamError)) throw error;
    throw new GllamError(
      error.code,
      `${file.path}: stopped after ${state.done} of ${file.episodes} episodes (${describeError(error)}); run the same ingest again to finish it (nothing is stored twice)`,
      { cause: error },
    );
  }
  return { path: file.path, format: file.format, episodes: file.episodes, ...counts, bad: file.bad, badCount: file.badCount, resumedAt };
}

export async function ingestFiles(store: Store, paths: string[], options: IngestOptions = {}, onProgress?: IngestProgress): Promise<IngestReport> {
  const started = performance.now();
  const checked: CheckedFile[] = [];
  for (const path of paths) checked.push(await checkFile(path, options));
  const total = checked.reduce((n, file) => n + file.episodes, 0);
  let done = 0;
  const files: FileIngestReport[] = [];
  const restoreSettings = useIngestSettings(store);
  // A worker costs its start (~0.1 s, a copy of the static table): worth it past one chunk.
  const embedAhead = options.staticEmbedder && total > CHUNK ? startEmbedAhead(options.staticEmbedder) : undefined;
  try {
    for (const file of checked) {
      files.push(await writeFile(store, file, { ...options, embedAhead }, (episodes) => onProgress?.((done += episodes), total, file.path)));
      options.walCheckpoints?.tick();
      await breathe();
    }
  } finally {
    restoreSettings();
    if (total > CHUNK) releaseWriterCache(store);
    await embedAhead?.close();
  }
  const sum = (key: "episodes" | "inserted" | "duplicates") => files.reduce((n, file) => n + file[key], 0);
  return {
    files,
    episodes: sum("episodes"),
    inserted: sum("inserted"),
    duplicates: sum("duplicates"),
    seconds: (performance.now() - started) / 1000,
    unfinished: listUnfinishedIngests(store.dbRO()),
  };
}

/**
 * Sets the writer's page cache to INGEST_CACHE_KIB (at most) and its auto-checkpoint to
 * INGEST_WAL_BYTES of the file's pages (unless checkpoints are off: a replicator owns them) for an ingest;
 * returns what restores both.
 */
function useIngestSettings(store: Store): () => void {
  const db = store.db();
  const cacheSize = db.query<{ cache_size: number }, []>("PRAGMA cache_size").get()!.cache_size;
  const autocheckpoint = db.query<{ wal_autocheckpoint: number }, []>("PRAGMA wal_autocheckpoint").get()!.wal_autocheckpoint;
  db.run(`PRAGMA cache_size = ${Math.max(-INGEST_CACHE_KIB, cacheSize)}`);
  const pageSize = db.query<{ page_size: number }, []>("PRAGMA page_size").get()!.page_size;
  if (autocheckpoint > 0) db.run(`PRAGMA wal_autocheckpoint = ${Math.max(INGEST_WAL_BYTES / pageSize, autocheckpoint)}`);
  return () => {
    db.run(`PRAGMA cache_size = ${cacheSize}`);
    db.run(`PRAGMA wal_autocheckpoint = ${autocheckpoint}`);
  };
}

/**
 * Frees the writer's cached pages at the end of a whole ingest: its index leaves and vec0 chunks,
 * ~70-80 MB at 1M episodes, which a server would otherwise hold until later writes evict them.
 */
export function releaseWriterCache(store: Store): void {
  store.db().run("PRAGMA shrink_memory");
}

export type WriteUnitsOptions = {
  staticEmbedder?: StaticEmbedder;
  /** The static vectors (and cells) of every episode of the batches, in order, computed ahead (embed-ahead.ts), so none is computed on the writer's thread. */
  staticAhead?: StaticAhead;
};
export type WriteCounts = { episodes: number; inserted: number; duplicates: number; mentions: number };

/** Units checked against the episode schema (a bad one throws), ready for writeBatches. */
export function parseUnits(units: IngestUnit[]): ParsedBatch[] {
  return units.map((unit) => parseEpisodes(unit.episodes, { sessions: unit.sessions, where: unit.key }));
}

/** Validates, then writes units in one transaction (the benchmarks' conversations), with an ingest's page cache and checkpoints; returns counts. */
export function writeUnits(store: Store, units: IngestUnit[], options: WriteUnitsOptions = {}): WriteCounts {
  return writeBatches(store, parseUnits(units), options);
}

/** Writes parsed units in one transaction, with an ingest's page cache and checkpoints; returns counts. */
export function writeBatches(store: Store, batches: ParsedBatch[], options: WriteUnitsOptions = {}): WriteCounts {
  const totals = { episodes: 0, inserted: 0, duplicates: 0, mentions: 0 };
  const restoreSettings = useIngestSettings(store);
  try {
    // One transaction for the call, as an ingest writes a chunk: a commit per unit flushed FTS5's
    // pending terms into a segment each time (16% of the bench's ingest time at 100K).
    store.transaction(() => {
      for (const batch of batches) {
        const at = totals.episodes;
        const staticAhead = options.staticAhead && selectAhead(options.staticAhead, batch.episodes.map((_, i) => at + i));
        const result = insertEpisodes(store.db(), batch, { staticEmbedder: options.staticEmbedder, staticAhead });
        totals.episodes += batch.episodes.length;
        totals.inserted += result.inserted;
        totals.duplicates += result.duplicates;
        totals.mentions += result.mentions;
      }
    });
  } finally {
    restoreSettings();
  }
  return totals;
}
