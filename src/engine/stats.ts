import type { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { readMetadata } from "./metadata.ts";
import { readSchemaVersion } from "./schema.ts";
import { isMemoryPath } from "./connections.ts";
import { walSizeBytes } from "./wal.ts";

export type StoreStats = {
  path: string;
  fileBytes: number;
  walBytes: number;
  schemaVersion: number;
  sqliteVersion: string;
  sqliteVecVersion: string;
  embeddingModel: string | null;
  embeddingDims: number | null;
  /** The static tier's table version, once episodes have static vectors. */
  staticModel: string | null;
  /** Rows per table, virtual tables included, SQLite's and FTS5/vec0 shadow tables left out. */
  tables: Record<string, number>;
};

export function readStats(db: Database, path: string): StoreStats {
  const listed = db
    .query<{ name: string; type: string }, []>("SELECT name, type FROM pragma_table_list WHERE schema = 'main' ORDER BY name")
    .all();
  // vec0 reports its shadow tables as plain tables: anything named after a virtual table is its storage.
  const virtual = listed.filter((t) => t.type === "virtual").map((t) => `${t.name}_`);
  const tables = listed
    .filter((t) => (t.type === "table" || t.type === "virtual") && !t.name.startsWith("sqlite_") && !virtual.some((v) => t.name.startsWith(v)))
    .map((t) => t.name);
  const counts: Record<string, number> = {};
  // Table names come from the schema itself, never from input; quoted as identifiers.
  for (const name of tables) counts[name] = db.query<{ n: number }, []>(`SELECT count(*) AS n FROM "${name.replaceAll('"', '""')}"`).get()?.n ?? 0;
  const dims = readMetadata(db, "embedding_dims");
  return {
    path,
    fileBytes: isMemoryPath(path) ? 0 : statSync(path).size,
    walBytes: walSizeBytes(path),
    schemaVersion: readSchemaVersion(db),
    ...db.query<{ sqliteVersion: string; sqliteVecVersion: string }, []>("SELECT sqlite_version() AS sqliteVersion, vec_version() AS sqliteVecVersion").get()!,
    embeddingModel: readMetadata(db, "embedding_model_version") ?? null,
    embeddingDims: dims === undefined ? null : Number(dims),
    staticModel: readMetadata(db, "static_model_version") ?? null,
    tables: counts,
  };
}
