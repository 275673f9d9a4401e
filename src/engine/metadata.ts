import type { Database } from "bun:sqlite";

/** system_metadata: one value per key (embedding model version and dims, schema version). */
export function readMetadata(db: Database, key: string): string | undefined {
  const row = db.query<{ value: string }, [string]>("SELECT value FROM system_metadata WHERE key = ?").get(key);
  return row?.value;
}

export function writeMetadata(db: Database, key: string, value: string): void {
  db.query(
    `INSERT INTO system_metadata (key, value, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  ).run(key, value, Date.now());
}
