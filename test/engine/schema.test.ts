import type { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { episodeRemovals } from "../../src/engine/file-state.ts";
import { readMetadata } from "../../src/engine/metadata.ts";
import { ensureVectorTables, GLLAM_APPLICATION_ID, hasVectorTables, initSchema, SCHEMA_VERSION } from "../../src/engine/schema.ts";
import { Store } from "../../src/engine/store.ts";
import { expectGllamError, makeTempDir } from "../helpers.ts";

const dir = makeTempDir();
let n = 0;
async function freshStore(): Promise<Store> {
  const store = await Store.open(join(dir, `schema-${++n}.db`));
  initSchema(store.db());
  return store;
}

const schemaOf = (db: Database) => db.query("SELECT type, name, sql FROM sqlite_schema ORDER BY type, name").all();

/** Every table DESIGN.md names, across the three layers and the system tables. */
const DESIGN_TABLES = [
  "system_metadata",
  "maintenance_jobs",
  "sources",
  "semantic_nodes",
  "semantic_links",
  "sessions",
  "episodes",
  "episodes_fts",
  "episode_mentions",
  "episodic_summaries",
  "extracted_sessions",
  "procedural_knowledge",
  "procedural_versions",
];

describe("initSchema", () => {
  test("creates every table, records the version and is idempotent", async () => {
    const store = await freshStore();
    const db = store.db();
    const names = new Set(db.query<{ name: string }, []>("SELECT name FROM sqlite_schema").all().map((r) => r.name));
    for (const table of DESIGN_TABLES) expect(names.has(table)).toBe(true);
    expect(db.query("PRAGMA user_version").get()).toEqual({ user_version: SCHEMA_VERSION });
    expect(db.query("PRAGMA application_id").get()).toEqual({ application_id: GLLAM_APPLICATION_ID });
    expect(readMetadata(db, "schema_version")).toBe(String(SCHEMA_VERSION));

    const before = schemaOf(db);
    initSchema(db);
    initSchema(db);
    expect(schemaOf(db)).toEqual(before);
    store.close();
  });

  test("opening a version-1 file made before an index was added adds it, and drops the one it replaced", async () => {
    const store = await freshStore();
    const db = store.db();
    db.run("DROP INDEX idx_episodes_recent");
    db.run("CREATE INDEX idx_episodes_created ON episodes(scope, created_at)");
    initSchema(db);
    const indexes = db.query<{ name: string }, []>("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'episodes'").all().map((r) => r.name);
    expect(indexes).toContain("idx_episodes_recent");
    expect(indexes).not.toContain("idx_episodes_created");
    store.close();
  });

  test("deleting episodes replaces the file's removal token (episodeRemovals), a file made before it has none until a writer opens it, and appending leaves it", async () => {
    const store = await freshStore();
    const db = store.db();
    db.run("INSERT INTO sessions (scope, id, created_at) VALUES ('default', 's', 0)");
    const add = db.query("INSERT INTO episodes (scope, session_id, seq, speaker, content, content_hash, created_at) VALUES ('default', 's', ?, 'Ann', ?, ?, 0) RETURNING id");
    const ids = [1, 2, 3].map((seq) => (add.get(seq, `turn ${seq}`, `h${seq}`) as { id: number }).id);
    expect(episodeRemovals(db)).toBe("none");
    db.run("DELETE FROM episodes WHERE id = ?", [ids[0]!]);
    const first = episodeRemovals(db);
    expect(first).toMatch(/^-?\d+$/);
    add.get(4, "turn 4", "h4");
    expect(episodeRemovals(db)).toBe(first);
    db.run("DELETE FROM episodes WHERE id IN (?, ?)", [ids[1]!, ids[2]!]);
    expect(episodeRemovals(db)).not.toBe(first);
    db.run("DROP TABLE removal_tokens");
    expect(episodeRemovals(store.dbRO())).toBeUndefined();
    initSchema(db);
    expect(episodeRemovals(store.dbRO())).toBe("none");
    store.close();
  });

  test("vector tables appear with the first dimension and refuse another", async () => {
    const store = await freshStore();
    const db = store.db();
    expect(hasVectorTables(db)).toBe(false);
    ensureVectorTables(db, 8);
    ensureVectorTables(db, 8);
    expect(hasVectorTables(db)).toBe(true);
    expect(readMetadata(db, "embedding_dims")).toBe("8");
    await expectGllamError(() => ensureVectorTables(db, 16), "E_EMBEDDING_DRIFT", /holds 8-dimensional vectors/);
    // Re-running initSchema on a file with vectors keeps them.
    initSchema(db);
    expect(hasVectorTables(db)).toBe(true);
    store.close();
  });

  test("foreign keys are enforced: a link cannot point at a missing node", async () => {
    const store = await freshStore();
    expect(() =>
      store
        .db()
        .run("INSERT INTO semantic_links (source_id, target_id, relationship, valid_from, recorded_at) VALUES ('a', 'b', 'r', 0, 0)"),
    ).toThrow(/FOREIGN KEY/);
    store.close();
  });

  test("episodes are indexed by FTS5 with porter stemming, kept in step by triggers", async () => {
    const store = await freshStore();
    const db = store.db();
    db.run("INSERT INTO sessions (id, created_at) VALUES ('s1', 0)");
    db.run(
      "INSERT INTO episodes (session_id, seq, speaker, content, content_hash, created_at) VALUES ('s1', 1, 'Mel', 'We were running the deployments all night', 'h1', 0)",
    );
    const match = (q: string) => db.query<{ rowid: number }, [string]>("SELECT rowid FROM episodes_fts WHERE episodes_fts MATCH ?").all(q);
    expect(match("runs deployment")).toHaveLength(1);
    db.run("UPDATE episodes SET content = 'nothing here' WHERE content_hash = 'h1'");
    expect(match("deployment")).toHaveLength(0);
    expect(match("nothing")).toHaveLength(1);
    db.run("DELETE FROM episodes");
    expect(match("nothing")).toHaveLength(0);
    store.close();
  });

  test.each([
    ["active links by source and relationship", "SELECT id FROM semantic_links WHERE scope = 'default' AND source_id = 'x' AND relationship = 'r' AND expired_at IS NULL", "idx_semantic_links_active"],
    ["taxonomy prefix", "SELECT id FROM semantic_nodes WHERE scope = 'default' AND taxonomy_path >= '/Eng/' AND taxonomy_path < '/Eng0'", "idx_semantic_nodes_taxonomy"],
    ["episodes by session", "SELECT id FROM episodes WHERE scope = 'default' AND session_id = 's' ORDER BY seq", "idx_episodes_session"],
    ["episodes by time", "SELECT id FROM episodes WHERE scope = 'default' AND occurred_at BETWEEN 0 AND 10", "idx_episodes_time"],
  ])("the query for %s uses its index", async (_name, sql, index) => {
    const store = await freshStore();
    const plan = store.db().query<{ detail: string }, []>(`EXPLAIN QUERY PLAN ${sql}`).all().map((r) => r.detail).join("\n");
    expect(plan).toContain(index);
    store.close();
  });
});
