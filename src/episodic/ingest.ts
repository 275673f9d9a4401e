/**
 * `gllam ingest`: files parsed whole (every record checked) before anything is written, then each
 * file written in one transaction, so a file is either all in or not at all.
 */
import type { Store } from "../engine/store.ts";
import type { WALCheckpointManager } from "../engine/wal.ts";
import type { StaticEmbedder } from "../embed/static/static-embedder.ts";
import { insertEpisodes, parseEpisodes } from "./episodes.ts";
import { readSourceFile, type ReadSourceOptions } from "./formats/read-source.ts";
import type { BadRecord, FormatName, IngestUnit } from "./formats/source.ts";

export type FileIngestReport = { path: string; format: FormatName; units: number; episodes: number; inserted: number; duplicates: number; mentions: number; bad: BadRecord[] };
export type IngestReport = { files: FileIngestReport[]; episodes: number; inserted: number; duplicates: number; seconds: number };
export type IngestProgress = (done: number, total: number, file: string) => void;

/** Episodes written per statement batch inside a file's transaction (progress granularity). */
const SLICE = 5000;

export type WriteUnitsOptions = { staticEmbedder?: StaticEmbedder; onSlice?: (written: number) => void };

/** Validates, then writes units in one transaction; returns counts. Shared by `gllam ingest` and the benchmarks. */
export function writeUnits(store: Store, units: IngestUnit[], options: WriteUnitsOptions = {}): Omit<FileIngestReport, "path" | "format" | "bad"> {
  const batches = units.map((unit) => parseEpisodes(unit.episodes, { sessions: unit.sessions, where: unit.key }));
  const db = store.db();
  return store.transaction(() => {
    const totals = { units: units.length, episodes: 0, inserted: 0, duplicates: 0, mentions: 0 };
    for (const batch of batches) {
      for (let i = 0; i < Math.max(1, batch.episodes.length); i += SLICE) {
        const slice = batch.episodes.slice(i, i + SLICE);
        const result = insertEpisodes(db, { episodes: slice, sessions: i === 0 ? batch.sessions : [] }, { staticEmbedder: options.staticEmbedder });
        totals.episodes += slice.length;
        totals.inserted += result.inserted;
        totals.duplicates += result.duplicates;
        totals.mentions += result.mentions;
        options.onSlice?.(slice.length);
      }
    }
    return totals;
  });
}

export type IngestOptions = ReadSourceOptions & {
  /** Checkpointed after every file, so the WAL stays near one file's transaction however many files there are. */
  walCheckpoints?: Pick<WALCheckpointManager, "tick">;
  /** Gives new episodes static vectors in their file's transaction. */
  staticEmbedder?: StaticEmbedder;
};

export async function ingestFiles(store: Store, paths: string[], options: IngestOptions = {}, onProgress?: IngestProgress): Promise<IngestReport> {
  const started = performance.now();
  // Parse everything first: a bad file fails the command before any file is written.
  const parsed = await Promise.all(paths.map(async (path) => ({ path, source: await readSourceFile(path, options) })));
  const total = parsed.reduce((n, { source }) => n + source.units.reduce((m, unit) => m + unit.episodes.length, 0), 0);
  let done = 0;
  const files: FileIngestReport[] = [];
  for (const { path, source } of parsed) {
    const counts = writeUnits(store, source.units, { staticEmbedder: options.staticEmbedder, onSlice: (written) => onProgress?.((done += written), total, path) });
    files.push({ path, format: source.format, ...counts, bad: source.bad });
    options.walCheckpoints?.tick();
    // A turn of the event loop between files: timers (the checkpoint manager's too) and progress output run.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const sum = (key: "episodes" | "inserted" | "duplicates") => files.reduce((n, file) => n + file[key], 0);
  return { files, episodes: sum("episodes"), inserted: sum("inserted"), duplicates: sum("duplicates"), seconds: (performance.now() - started) / 1000 };
}
