import type { Database } from "bun:sqlite";

/**
 * A token that changes whenever what this connection reads may have changed: PRAGMA data_version
 * (bumped by another connection's commit), total_changes() (this connection's own writes) and
 * PRAGMA schema_version (a table dropped and made again). What a connection derives from the file
 * and keeps between reads (decoded centroids, a scan's chunk lists) is good while it is unchanged.
 */
export function readFileState(db: Database): string {
  const row = db
    .query<{ version: number; changes: number; schema: number }, []>(
      "SELECT (SELECT data_version FROM pragma_data_version) AS version, total_changes() AS changes, (SELECT schema_version FROM pragma_schema_version) AS schema",
    )
    .get()!;
  return `${row.version}:${row.changes}:${row.schema}`;
}
