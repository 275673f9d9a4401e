/**
 * `gllam backup OUT`: a consistent copy of the database while other processes write. VACUUM INTO
 * reads one snapshot (a read transaction: writers go on) and writes it compacted into a new file,
 * without free pages, so nothing forgotten travels with the copy, and with the page size new files
 * get (PAGE_SIZE: a file made with 4 KB pages is converted this way). The copy is written beside OUT
 * and renamed into place: OUT is whole or absent, never half a database.
 */
import { existsSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { PAGE_SIZE, runOnReader } from "../engine/connections.ts";
import { describeError, GllamError } from "../engine/errors.ts";
import type { Store } from "../engine/store.ts";

export type BackupReport = { path: string; bytes: number; seconds: number };

export function backupTo(store: Store, out: string, options: { force?: boolean } = {}): BackupReport {
  const started = performance.now();
  const target = resolve(out);
  if (target === store.path) throw new GllamError("E_BAD_INPUT", `${out} is the database itself: back it up to another file`);
  if (existsSync(target) && !options.force) throw new GllamError("E_CONFLICT", `${out} exists: choose another file, or --force to replace it`);
  const folder = dirname(target);
  if (!existsSync(folder)) throw new GllamError("E_CANNOT_OPEN", `cannot write the backup to ${out}: folder ${folder} does not exist`);
  const partial = `${target}.${process.pid}.partial`;
  rmSync(partial, { force: true });
  try {
    // VACUUM INTO writes the page size asked on its connection: a file made with 4 KB pages is copied with today's.
    runOnReader(store.dbRO(), () => {
      store.dbRO().run(`PRAGMA page_size = ${PAGE_SIZE}`);
      store.dbRO().query("VACUUM INTO ?").run(partial);
    });
    // A replaced database's -wal and -shm belong to the old file: left beside the new one they would be replayed into it.
    for (const companion of ["-wal", "-shm"]) rmSync(`${target}${companion}`, { force: true });
    renameSync(partial, target);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error instanceof GllamError ? error : new GllamError("E_CANNOT_OPEN", `cannot write the backup to ${out}: ${describeError(error)}`);
  }
  return { path: target, bytes: statSync(target).size, seconds: (performance.now() - started) / 1000 };
}
