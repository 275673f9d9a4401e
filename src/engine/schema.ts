import type { Database } from "bun:sqlite";
import schemaSql from "../../schema/schema.sql" with { type: "text" };
import { GllamError } from "./errors.ts";
import { readMetadata, writeMetadata } from "./metadata.ts";

/** The version schema/schema.sql creates; PRAGMA user_version records it in the file. */
export const SCHEMA_VERSION = 2;
/** The oldest schema version with this one's tables and columns (2 changed an index only): a gllam export from it imports as it is. */
export const SAME_TABLES_SINCE = 1;
/** PRAGMA application_id of every GLLAM file ("GLLM"), so foreign SQLite files are refused. */
export const GLLAM_APPLICATION_ID = 0x474c4c4d;

/**
 * Upgrades from an older version. A fresh file gets schema.sql (always the latest full DDL) and
 * skips these; a file at version v runs every migration above v, in order, in one transaction.
 */
type Migration = { version: number; up: (db: Database) => void };
const MIGRATIONS: Migration[] = [{ version: 2, up: keyEpisodesBySession }];

const [RELATIONAL_DDL, VECTOR_DDL, STATIC_VECTOR_DDL] = splitSchema(schemaSql, ["-- @vectors", "-- @static-vectors"]);

function splitSchema(sql: string, markers: string[]): string[] {
  const at = markers.map((marker) => {
    const found = sql.indexOf(marker);
    if (found < 0) throw new GllamError("E_CONFIG", `schema.sql has no "${marker}" section`);
    return found;
  });
  return [0, ...at].map((start, i) => sql.slice(start, at[i] ?? sql.length));
}

const EPISODES_TABLE_DDL = /CREATE TABLE IF NOT EXISTS episodes \([\s\S]*?\n\) STRICT;/.exec(schemaSql)?.[0];

/**
 * Version 2: an episode's identity is the unique idx_episodes_session (scope, session_id, seq,
 * content_hash), no longer the table's UNIQUE (scope, content_hash), whose random leaves were most
 * of what an ingest wrote at 1M episodes. SQLite keeps a table's UNIQUE as an index only a new table
 * drops: the rows move, with their ids and the AUTOINCREMENT counter, to a table made by schema.sql's
 * statement, and schema.sql then makes the indexes and triggers again (~10 s at 1M episodes). Needs
 * foreign keys off (upgradeSchema): dropping the old table would delete through every child's
 * foreign key (the vector queue's ON DELETE CASCADE).
 */
function keyEpisodesBySession(db: Database): void {
  if (!EPISODES_TABLE_DDL) throw new GllamError("E_CONFIG", "schema.sql has no episodes table");
  if (db.query<{ foreign_keys: number }, []>("PRAGMA foreign_keys").get()?.foreign_keys !== 0) {
    throw new GllamError("E_INTERNAL", "the episodes table is rebuilt with foreign keys off: open the file through upgradeSchema");
  }
  const columns = db.query<{ name: string }, []>("SELECT name FROM pragma_table_info('episodes')").all().map((column) => column.name).join(", ");
  const counter = db.query<{ seq: number }, []>("SELECT seq FROM sqlite_sequence WHERE name = 'episodes'").get()?.seq;
  db.run(EPISODES_TABLE_DDL.replace("CREATE TABLE IF NOT EXISTS episodes", "CREATE TABLE episodes_v2"));
  db.run(`INSERT INTO episodes_v2 (${columns}) SELECT ${columns} FROM episodes ORDER BY id`);
  db.run("DROP TABLE episodes");
  db.run("ALTER TABLE episodes_v2 RENAME TO episodes");
  // Ids are never reused: the counter stays past ids deleted from the top.
  if (counter !== undefined) {
    db.query("DELETE FROM sqlite_sequence WHERE name = 'episodes'").run();
    db.query("INSERT INTO sqlite_sequence (name, seq) VALUES ('episodes', ?)").run(counter);
  }
}

/**
 * initSchema for a file opened for writing, in `transaction` (the Store's: opening waits for another
 * process's write like any write). A file from before version 2 is upgraded with foreign keys off
 * (keyEpisodesBySession) and its sorts spilled to temporary files rather than memory (rebuilding
 * the indexes of 1M episodes held 1.5 GB resident with temp_store MEMORY, 0.58 GB with FILE, and
 * took 24 s against 15), both restored after; they can only change outside a transaction.
 */
export function upgradeSchema(db: Database, transaction: (fn: () => void) => void): void {
  const version = readSchemaVersion(db);
  const rebuild = version > 0 && version < 2 && !db.inTransaction;
  const restore = ["foreign_keys", "temp_store"].map((pragma) => `PRAGMA ${pragma} = ${db.query<Record<string, number>, []>(`PRAGMA ${pragma}`).get()?.[pragma] ?? 0}`);
  if (rebuild) db.run("PRAGMA foreign_keys = OFF");
  if (rebuild) db.run("PRAGMA temp_store = FILE");
  try {
    transaction(() => initSchema(db));
  } finally {
    if (rebuild) for (const statement of restore) db.run(statement);
  }
}

export function readSchemaVersion(db: Database): number {
  return db.query<{ user_version: number }, []>("PRAGMA user_version").get()?.user_version ?? 0;
}

/** Creates or upgrades every table; safe to run any number of times, from several processes. */
export function initSchema(db: Database): void {
  db.transaction(() => {
    const version = readSchemaVersion(db);
    if (version > SCHEMA_VERSION) {
      throw new GllamError("E_SCHEMA_NEWER", `schema version ${version} is newer than this gllam understands (${SCHEMA_VERSION})`);
    }
    for (const migration of MIGRATIONS) if (version > 0 && migration.version > version) migration.up(db);
    const lexiconBefore = setAsideLexiconPostings(db);
    // Idempotent: a fresh file gets every table; an existing one gets the indexes added since it was made.
    db.run(RELATIONAL_DDL!);
    if (lexiconBefore) copyLexiconPostings(db, lexiconBefore);
    if (version !== SCHEMA_VERSION) {
      db.run(`PRAGMA user_version = ${SCHEMA_VERSION}`);
      db.run(`PRAGMA application_id = ${GLLAM_APPLICATION_ID}`);
      writeMetadata(db, "schema_version", String(SCHEMA_VERSION));
    }
    const dims = readMetadata(db, "embedding_dims");
    if (dims) createVectorTables(db, Number(dims));
    const staticDims = readMetadata(db, "static_dims");
    if (staticDims) createVectorTables(db, Number(staticDims), STATIC_VECTOR_DDL);
    // Cells built before their chunk index existed get it (the vector tables get theirs when made, above).
    for (const tier of ["model", "static"] as const) indexVectorChunks(db, tier);
  }).immediate();
}

/**
 * The episode lexicon's postings as first made (WITHOUT ROWID, whose look-ups read the postings of
 * every key compared), renamed for copying into the table schema.sql makes now; undefined when
 * the file has the current layout or none.
 */
function setAsideLexiconPostings(db: Database): string | undefined {
  const sql = db.query<{ sql: string }, []>("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'episode_lexicon_postings'").get()?.sql;
  if (!sql?.includes("WITHOUT ROWID")) return undefined;
  const aside = "episode_lexicon_postings_before";
  db.run(`ALTER TABLE episode_lexicon_postings RENAME TO ${aside}`);
  return aside;
}

/** The set-aside rows in the current table, in key order (~5 s for the 1M bench file's 169 MB), then the old table dropped. */
function copyLexiconPostings(db: Database, aside: string): void {
  db.run(`INSERT INTO episode_lexicon_postings (scope, block, term, documents, postings) SELECT scope, block, term, documents, postings FROM ${aside} ORDER BY scope, block, term`);
  db.run(`DROP TABLE ${aside}`);
}

/**
 * Creates the vec0 tables for a dimension. The dimension is fixed per file: another one means the
 * vectors come from another model, which only a re-embed may change.
 */
export function ensureVectorTables(db: Database, dims: number): void {
  db.transaction(() => {
    const stored = readMetadata(db, "embedding_dims");
    if (stored !== undefined && Number(stored) === dims) return;
    if (stored !== undefined) {
      throw new GllamError(
        "E_EMBEDDING_DRIFT",
        `this database holds ${stored}-dimensional vectors; the embedder gives ${dims} (run \`gllam reembed\` or use the original embedder)`,
      );
    }
    createVectorTables(db, dims);
    writeMetadata(db, "embedding_dims", String(dims));
  }).immediate();
}

function createVectorTables(db: Database, dims: number, ddl = VECTOR_DDL!): void {
  if (!Number.isInteger(dims) || dims <= 0 || dims > 8192) {
    throw new GllamError("E_BAD_INPUT", `embedding dimension must be an integer in 1..8192, got ${dims}`);
  }
  db.run(ddl.replaceAll("{{dims}}", String(dims)));
  for (const tier of ["model", "static"] as const) indexVectorChunks(db, tier);
}

/**
 * The static tier's tables, for a static embedder's version and dimension; the caller holds the
 * write transaction. False when the stored static vectors come from another table (drift: they
 * are kept, and left alone, until `gllam reembed` rebuilds them).
 */
export function ensureStaticVectorTable(db: Database, modelVersion: string, dims: number): boolean {
  const stored = readMetadata(db, "static_model_version");
  if (stored !== undefined) return stored === modelVersion;
  createVectorTables(db, dims, STATIC_VECTOR_DDL);
  writeMetadata(db, "static_model_version", modelVersion);
  writeMetadata(db, "static_dims", String(dims));
  return true;
}

export type VectorTier = "model" | "static";

/** Where each tier keeps the vectors of nodes and episodes, which metadata names its model, and how SQL takes a vector. */
export const VECTOR_TIERS = {
  model: {
    nodes: "semantic_embeddings",
    episodes: "episode_vectors",
    /** The cells index over large scopes' episode vectors, its centroids and its scopes (src/episodic/episode-cells.ts). */
    episodeCells: "episode_model_cells",
    cellCentroids: "model_cell_centroids",
    cellScopes: "model_cell_scopes",
    versionKey: "embedding_model_version",
    dimsKey: "embedding_dims",
    sqlVector: "?",
  },
  static: {
    nodes: "node_static_vectors",
    episodes: "episode_static_vectors",
    episodeCells: "episode_static_cells",
    cellCentroids: "static_cell_centroids",
    cellScopes: "static_cell_scopes",
    versionKey: "static_model_version",
    dimsKey: "static_dims",
    sqlVector: "vec_int8(?)",
  },
} as const;

const TIER_DDL: Record<VectorTier, string> = { model: VECTOR_DDL!, static: STATIC_VECTOR_DDL! };

/**
 * Replaces a tier's tables with empty ones at dims and records the model that fills them; the
 * caller holds the write transaction (reembed's swap fills them before it commits).
 */
export function replaceVectorTier(db: Database, tier: VectorTier, modelVersion: string, dims: number): void {
  const tables = VECTOR_TIERS[tier];
  db.run(`DROP TABLE IF EXISTS ${tables.nodes}`);
  db.run(`DROP TABLE IF EXISTS ${tables.episodes}`);
  // The cells were cut for the old table's vectors: the next write to a large scope rebuilds them.
  db.run(`DROP TABLE IF EXISTS ${tables.episodeCells}`);
  db.run(`DELETE FROM ${tables.cellCentroids}`);
  db.run(`DELETE FROM ${tables.cellScopes}`);
  createVectorTables(db, dims, TIER_DDL[tier]);
  writeMetadata(db, tables.versionKey, modelVersion);
  writeMetadata(db, tables.dimsKey, String(dims));
}

/**
 * Deletes every vector of these nodes or episodes: both tiers, and any staged by an unfinished
 * reembed. Returns how many live vectors of each tier went.
 */
export function deleteVectors(db: Database, kind: "nodes" | "episodes", ids: readonly (string | number)[]): Record<VectorTier, number> {
  const deleted = { model: 0, static: 0 };
  if (ids.length === 0) return deleted;
  const list = JSON.stringify(ids);
  const column = kind === "nodes" ? "node_id" : "episode_id";
  for (const tier of ["model", "static"] as const) {
    const table = VECTOR_TIERS[tier][kind];
    if (hasTable(db, table)) deleted[tier] = db.query(`DELETE FROM ${table} WHERE ${column} IN (SELECT value FROM json_each(?))`).run(list).changes;
    const cells = VECTOR_TIERS[tier].episodeCells;
    if (kind === "episodes" && hasTable(db, cells)) db.query(`DELETE FROM ${cells} WHERE episode_id IN (SELECT value FROM json_each(?))`).run(list);
  }
  db.query(`DELETE FROM ${kind === "nodes" ? "node" : "episode"}_vector_staging WHERE ${column} IN (SELECT value FROM json_each(?))`).run(list);
  return deleted;
}

/**
 * Indexes on vec0's chunk tables by partition: vec0 finds a partition's chunks by `partition00 = ?
 * [AND partition01 = ?]` on its `_chunks` shadow table, which it does not index, so every probed
 * cell (and every insert, looking for its partition's last chunk) read the chunk rows of every
 * partition of the file (~2,300 cells at 1M); the int8 scan (src/episodic/int8-scan.ts) reads a
 * scope's chunks of episode_static_vectors the same way. An index on a shadow table is SQLite's
 * own; vec0 neither knows nor minds, and dropping the vec0 table drops it. Idempotent: initSchema
 * adds them to files made before (src/episodic/episode-cells.ts builds the cells).
 */
export function indexVectorChunks(db: Database, tier: VectorTier): void {
  const { episodeCells, episodes } = VECTOR_TIERS[tier];
  if (hasTable(db, `${episodeCells}_chunks`)) db.run(`CREATE INDEX IF NOT EXISTS ${episodeCells}_chunks_partition ON ${episodeCells}_chunks (partition00, partition01)`);
  if (hasTable(db, `${episodes}_chunks`)) db.run(`CREATE INDEX IF NOT EXISTS ${episodes}_chunks_partition ON ${episodes}_chunks (partition00)`);
}

export function hasTable(db: Database, name: string): boolean {
  return db.query("SELECT 1 FROM sqlite_schema WHERE name = ?").get(name) !== null;
}

/** Per connection, the tables hasLastingTable has found. */
const lastingTables = new WeakMap<Database, Set<string>>();

/** hasTable for a table that stays once made (the token tables), remembered per connection once found: hot paths ask it. */
export function hasLastingTable(db: Database, name: string): boolean {
  const found = lastingTables.get(db) ?? new Set<string>();
  if (found.has(name)) return true;
  if (!hasTable(db, name)) return false;
  lastingTables.set(db, found.add(name));
  return true;
}

/**
 * Whether a scope holds model-tier vectors (of nodes or episodes): only then is a query worth
 * embedding with the model, which a fresh process would otherwise load for nothing.
 */
export function scopeHasModelVectors(db: Database, scope: string): boolean {
  if (!hasVectorTables(db)) return false;
  const has = (table: string) => db.query(`SELECT 1 FROM ${table} WHERE scope = ? LIMIT 1`).get(scope) !== null;
  return has(VECTOR_TIERS.model.nodes) || has(VECTOR_TIERS.model.episodes);
}

/** Whether the vec0 tables exist yet (they appear with the first stored vector). */
export function hasVectorTables(db: Database): boolean {
  return hasTable(db, "semantic_embeddings");
}
