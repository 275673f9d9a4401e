import type { Database } from "bun:sqlite";
import { hasLastingTable } from "./schema.ts";

/**
 * A mark of the file's state as a connection sees it: PRAGMA data_version moves with another
 * connection's commit, total_changes() with the connection's own writes (a rolled back one too).
 * Two equal marks: nothing was written in between.
 */
export function fileChanges(db: Database): string {
  const { version, changes } = db.query<{ version: number; changes: number }, []>("SELECT (SELECT data_version FROM pragma_data_version) AS version, total_changes() AS changes").get()!;
  return `${version}:${changes}`;
}

/** PRAGMA schema_version: it moves when a table is made, dropped or changed. */
export const schemaVersion = (db: Database): number => db.query<{ schema_version: number }, []>("PRAGMA schema_version").get()!.schema_version;

/**
 * The token schema.sql's trigger replaces whenever episodes are deleted ("none" before the first
 * deletion); undefined in a file no writer of this version has opened, where deletions leave no mark.
 */
export function episodeRemovals(db: Database): string | undefined {
  if (!hasLastingTable(db, "removal_tokens")) return undefined;
  return String(db.query<{ token: number }, []>("SELECT token FROM removal_tokens WHERE name = 'episodes'").get()?.token ?? "none");
}
