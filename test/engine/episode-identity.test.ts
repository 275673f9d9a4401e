import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { initSchema, SCHEMA_VERSION } from "../../src/engine/schema.ts";
import { Gllam } from "../../src/gllam/gllam.ts";
import { expectGllamError, makeTempDir } from "../helpers.ts";

// An episode's identity: the unique idx_episodes_session (scope, session_id, seq, content_hash), made
// by schema.sql for a new file and by the version-2 migration for a file of version 1, whose table
// carried UNIQUE (scope, content_hash).

const dir = makeTempDir();
let n = 0;
const path = () => join(dir, `identity-${++n}.db`);
const turns = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => ({ sessionId: `s${(from + i) % 3}`, seq: from + i, speaker: i % 2 ? "Mel" : "Caroline", content: `turn ${from + i} about the pottery class and the lake` }));

const episodeIndexes = (db: Database) =>
  db
    .query<{ name: string; unique: number }, []>("SELECT name, \"unique\" FROM pragma_index_list('episodes') ORDER BY name")
    .all()
    .map((index) => ({ ...index, columns: db.query<{ name: string }, [string]>("SELECT name FROM pragma_index_info(?)").all(index.name).map((c) => c.name) }));
const rows = (db: Database) => db.query("SELECT * FROM episodes ORDER BY id").all();
const counts = (db: Database) => ({
  queue: db.query("SELECT count(*) AS n FROM episode_vector_queue").get(),
  fts: db.query("SELECT count(*) AS n FROM episodes_fts").get(),
  speakers: db.query("SELECT count(*) AS n FROM episode_speakers").get(),
});

/** The episodes table as version 1 made it (UNIQUE (scope, content_hash), idx_episodes_session on three columns), the rows, indexes and triggers kept. */
function makeVersion1(file: string): void {
  const db = new Database(file);
  db.run("PRAGMA foreign_keys = OFF");
  const table = db.query<{ sql: string }, []>("SELECT sql FROM sqlite_schema WHERE name = 'episodes'").get()!.sql;
  const others = db.query<{ name: string; sql: string }, []>("SELECT name, sql FROM sqlite_schema WHERE tbl_name = 'episodes' AND type IN ('index', 'trigger') AND sql IS NOT NULL").all();
  const counter = db.query<{ seq: number }, []>("SELECT seq FROM sqlite_sequence WHERE name = 'episodes'").get()!.seq;
  db.transaction(() => {
    db.run(table.replace(/CREATE TABLE "?episodes"?/, "CREATE TABLE episodes_v1").replace("  FOREIGN KEY (scope, session_id)", "  UNIQUE (scope, content_hash),\n  FOREIGN KEY (scope, session_id)"));
    db.run("INSERT INTO episodes_v1 SELECT * FROM episodes");
    db.run("DROP TABLE episodes");
    db.run("ALTER TABLE episodes_v1 RENAME TO episodes");
    db.run("UPDATE sqlite_sequence SET seq = ? WHERE name = 'episodes'", [counter]);
    for (const other of others) db.run(other.name === "idx_episodes_session" ? "CREATE INDEX idx_episodes_session ON episodes(scope, session_id, seq)" : other.sql);
    db.run("PRAGMA user_version = 1");
  })();
  db.close();
}

describe("the episodes' identity", () => {
  test("a new file keys it by session: one unique index, no index of the table's own", async () => {
    const gllam = await Gllam.open(path());
    const indexes = episodeIndexes(gllam.db());
    expect(indexes.filter((index) => index.unique)).toEqual([{ name: "idx_episodes_session", unique: 1, columns: ["scope", "session_id", "seq", "content_hash"] }]);
    expect(indexes.some((index) => index.name.startsWith("sqlite_autoindex_episodes"))).toBe(false);
    // Adding the same turns again adds nothing and answers with the ids they have.
    const first = gllam.addEpisodes(turns(6));
    const again = gllam.addEpisodes(turns(6));
    expect(again).toMatchObject({ inserted: 0, duplicates: 6, ids: first.ids });
    gllam.close();
  });

  test("a version-1 file is rebuilt when opened: the same rows, ids, queue, FTS5 rows and id counter, its duplicates still found", async () => {
    const file = path();
    const made = await Gllam.open(file);
    const { ids } = made.addEpisodes(turns(30));
    // The newest episode deleted: the AUTOINCREMENT counter stays past it, and must after the rebuild.
    made.db().run("DELETE FROM episodes WHERE id = ?", [ids.at(-1)!]);
    made.close();
    makeVersion1(file);
    const old = new Database(file, { readonly: true });
    expect(episodeIndexes(old).filter((index) => index.unique).map((index) => index.columns)).toEqual([["scope", "content_hash"]]);
    const before = { rows: rows(old), counts: counts(old) };
    old.close();

    const gllam = await Gllam.open(file);
    const db = gllam.db();
    expect(db.query("PRAGMA user_version").get()).toEqual({ user_version: SCHEMA_VERSION });
    expect(episodeIndexes(db).filter((index) => index.unique)).toEqual([{ name: "idx_episodes_session", unique: 1, columns: ["scope", "session_id", "seq", "content_hash"] }]);
    expect(episodeIndexes(db).map((index) => index.name)).toEqual(["idx_episodes_recent", "idx_episodes_session", "idx_episodes_speaker", "idx_episodes_time"]);
    // The vector queue refers to episodes ON DELETE CASCADE: the old table dropped with foreign keys on would have emptied it.
    expect({ rows: rows(db), counts: counts(db) }).toEqual(before);
    // Both pragmas the rebuild changes are the writer's again (temp_store 2: MEMORY).
    expect(db.query("PRAGMA foreign_keys").get()).toEqual({ foreign_keys: 1 });
    expect(db.query("PRAGMA temp_store").get()).toEqual({ temp_store: 2 });
    expect(db.query("PRAGMA foreign_key_check").all()).toEqual([]);
    expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });

    expect(gllam.addEpisodes(turns(29))).toMatchObject({ inserted: 0, duplicates: 29, ids: ids.slice(0, 29) });
    const added = gllam.addEpisodes([
      { sessionId: "new", seq: 0, speaker: "Mel", content: "the quince harvest came in" },
      { sessionId: "new", seq: 1, speaker: "Caroline", content: "how big was it" },
    ]);
    expect(added.inserted).toBe(2);
    expect(Math.min(...added.ids)).toBeGreaterThan(ids.at(-1)!);
    // The triggers were made again on the new table: the FTS5 row of a new turn, with its session's turn before it as context.
    expect(db.query("SELECT rowid FROM episodes_fts WHERE episodes_fts MATCH 'context:quince'").all()).toEqual([{ rowid: added.ids[1]! }]);
    gllam.close();
  });

  test("the rebuild refuses to run with foreign keys on, and leaves the file at version 1", async () => {
    const file = path();
    const made = await Gllam.open(file);
    made.addEpisodes(turns(4));
    made.close();
    makeVersion1(file);
    const db = new Database(file);
    db.run("PRAGMA foreign_keys = ON");
    await expectGllamError(() => initSchema(db), "E_INTERNAL", /foreign keys off/);
    expect(db.query("PRAGMA user_version").get()).toEqual({ user_version: 1 });
    expect(db.query("SELECT count(*) AS n FROM episode_vector_queue").get()).toEqual({ n: 4 });
    db.close();
  });
});
