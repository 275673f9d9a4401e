import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { GllamErrorCode } from "../../src/engine/errors.ts";
import { checkSchemaVersion, openSideReader, PAGE_SIZE } from "../../src/engine/connections.ts";
import { resolveVecExtension } from "../../src/engine/vec-extension.ts";
import { DEFAULT_BUSY_TIMEOUT_MS, DEFAULT_KNN_CACHE_MIB, Store, type StoreOptions } from "../../src/engine/store.ts";
import { readEnv } from "../../src/config/env.ts";
import { initSchema } from "../../src/engine/schema.ts";
import { expectGllamError, makeTempDir } from "../helpers.ts";

const dir = makeTempDir();
let n = 0;
const freshPath = () => join(dir, `store-${++n}.db`);

async function openInitialised(path = freshPath()): Promise<Store> {
  const store = await Store.open(path);
  initSchema(store.db());
  return store;
}

const pragma = (db: Database, name: string) => Object.values(db.query(`PRAGMA ${name}`).get() as object)[0];

describe("Store connections", () => {
  test("the writer runs with the seed's pragmas", async () => {
    const store = await openInitialised();
    const db = store.db();
    expect(pragma(db, "journal_mode")).toBe("wal");
    expect(pragma(db, "synchronous")).toBe(1); // NORMAL
    expect(pragma(db, "foreign_keys")).toBe(1);
    expect(pragma(db, "busy_timeout")).toBe(DEFAULT_BUSY_TIMEOUT_MS);
    expect(pragma(db, "wal_autocheckpoint")).toBe(1000);
    expect(pragma(db, "page_size")).toBe(PAGE_SIZE);
    expect(pragma(store.dbRO(), "page_size")).toBe(PAGE_SIZE);
    store.close();
  });

  test("a file made with 4 KB pages keeps them: it opens, takes writes and reads them back", async () => {
    const path = freshPath();
    const made = new Database(path);
    made.run("PRAGMA page_size = 4096");
    made.run("PRAGMA journal_mode = WAL");
    made.close();
    const store = await openInitialised(path);
    for (const id of ["before", "after"]) store.db().run("INSERT INTO sessions (scope, id, created_at) VALUES ('default', ?, 1)", [id]);
    expect(pragma(store.db(), "page_size")).toBe(4096);
    expect(store.dbRO().query("SELECT id FROM sessions ORDER BY id").all()).toEqual([{ id: "after" }, { id: "before" }]);
    store.close();
    const reopened = new Database(path, { readonly: true });
    expect(pragma(reopened, "page_size")).toBe(4096);
    expect(pragma(reopened, "integrity_check")).toBe("ok");
    reopened.close();
  });

  test("the read handle is query_only and refuses writes", async () => {
    const store = await openInitialised();
    const ro = store.dbRO();
    expect(pragma(ro, "query_only")).toBe(1);
    expect(pragma(ro, "busy_timeout")).toBe(DEFAULT_BUSY_TIMEOUT_MS);
    expect(() => ro.run("INSERT INTO system_metadata (key, value, updated_at) VALUES ('x', 'y', 0)")).toThrow(/readonly|read-only/i);
    expect(ro.query("SELECT count(*) AS n FROM system_metadata WHERE key = 'x'").get()).toEqual({ n: 0 });
    store.close();
  });

  test("sqlite-vec is loaded on both handles", async () => {
    const store = await openInitialised();
    for (const db of [store.db(), store.dbRO()]) {
      expect((db.query("SELECT vec_version() AS v").get() as { v: string }).v).toMatch(/^v\d+\.\d+\.\d+/);
      const distance = db.query("SELECT vec_distance_cosine(vec_f32('[1, 0]'), vec_f32('[0, 1]')) AS d").get() as { d: number };
      expect(distance.d).toBeCloseTo(1, 6);
    }
    store.close();
  });

  test("a transaction that throws leaves nothing behind", async () => {
    const store = await openInitialised();
    expect(() =>
      store.transaction(() => {
        store.db().run("INSERT INTO system_metadata (key, value, updated_at) VALUES ('a', 'b', 0)");
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(store.dbRO().query("SELECT count(*) AS n FROM system_metadata WHERE key = 'a'").get()).toEqual({ n: 0 });
    store.close();
  });

  test("the reader sees what the writer committed", async () => {
    const store = await openInitialised();
    store.transaction(() => store.db().run("INSERT INTO system_metadata (key, value, updated_at) VALUES ('seen', '1', 0)"));
    expect(store.dbRO().query("SELECT value FROM system_metadata WHERE key = 'seen'").get()).toEqual({ value: "1" });
    store.close();
  });

  test("close runs the close hooks once, before the connections close; a hook added after runs at once; a removed one never", async () => {
    const store = await openInitialised();
    const ran: string[] = [];
    store.onClose(() => ran.push(`open: ${store.dbRO().query("SELECT 1 AS one").get() !== null}`));
    store.onClose(() => ran.push("removed"))();
    store.close();
    expect(ran).toEqual(["open: true"]);
    store.onClose(() => ran.push("after"));
    expect(ran).toEqual(["open: true", "after"]);
  });

  test("a read-only store has no writer", async () => {
    const path = freshPath();
    (await openInitialised(path)).close();
    const store = await Store.open(path, { readOnly: true });
    expect(store.readOnly).toBe(true);
    expect(() => store.db()).toThrow(/read-only/);
    store.close();
  });

  test("a store that writes reads without the file map (dropped at every commit of its writer); a read-only one maps 256 MiB", async () => {
    const path = freshPath();
    const writing = await openInitialised(path);
    expect(pragma(writing.dbRO(), "mmap_size")).toBe(0);
    writing.close();
    const reading = await Store.open(path, { readOnly: true });
    expect(pragma(reading.dbRO(), "mmap_size")).toBe(256 * 1024 * 1024);
    reading.close();
  });

  test("the KNN worker's side reader: no map, and a page cache of 4 MiB where the readers have 64 (it keeps the chunks it reads)", async () => {
    const path = freshPath();
    const store = await openInitialised(path);
    const side = openSideReader(path, await resolveVecExtension());
    expect(pragma(side, "mmap_size")).toBe(0);
    expect(pragma(side, "cache_size")).toBe(-4096);
    expect(pragma(side, "query_only")).toBe(1);
    expect(pragma(store.dbRO(), "cache_size")).toBe(-65536);
    side.close();
    store.close();
  });

  test("the KNN worker's cache: 512 MiB unless told (0 keeps none); $GLLAM_KNN_CACHE_MB is checked where it is read", async () => {
    const path = freshPath();
    for (const [options, bytes] of [[{}, DEFAULT_KNN_CACHE_MIB * 2 ** 20], [{ knnCacheMiB: 0 }, 0], [{ knnCacheMiB: 64, readOnly: true }, 64 * 2 ** 20]] as [StoreOptions, number][]) {
      const store = await Store.open(path, options);
      expect(store.knnCacheBytes).toBe(bytes);
      store.close();
    }
    expect(DEFAULT_KNN_CACHE_MIB).toBe(512);
    expect(readEnv({ GLLAM_KNN_CACHE_MB: " 128 " }).GLLAM_KNN_CACHE_MB).toBe(128);
    for (const [value, message] of [["lots", /must be a number of MiB/], ["1.5", /must be a whole number/], ["-2", /must not be negative/], ["8192", /must be at most 4000/]] as const) {
      await expectGllamError(() => readEnv({ GLLAM_KNN_CACHE_MB: value }), "E_CONFIG", new RegExp(`GLLAM_KNN_CACHE_MB: ${message.source}`));
    }
  });
});

/** Snapshot of a file and its WAL companions, to prove a refused open changed nothing. */
function snapshot(path: string) {
  const isFile = existsSync(path) && statSync(path).isFile();
  return {
    bytes: isFile ? readFileSync(path).toString("base64") : null,
    mtime: existsSync(path) ? statSync(path).mtimeMs : null,
    wal: existsSync(`${path}-wal`),
    shm: existsSync(`${path}-shm`),
  };
}

type BadCase = { name: string; make: () => string; code: GllamErrorCode; message: RegExp; options?: StoreOptions };

const badCases: BadCase[] = [
  {
    name: "a text file",
    make: () => {
      const path = freshPath();
      writeFileSync(path, "these are my notes, not a database\n".repeat(20));
      return path;
    },
    code: "E_NOT_SQLITE",
    message: /not a SQLite database/,
  },
  {
    name: "a database from a newer schema version",
    make: () => {
      const path = freshPath();
      const db = new Database(path);
      db.run("PRAGMA application_id = 1196182605");
      db.run("CREATE TABLE future (x)");
      db.run("PRAGMA user_version = 99");
      db.close();
      return path;
    },
    code: "E_SCHEMA_NEWER",
    message: /schema version 99/,
  },
  {
    name: "another application's SQLite database",
    make: () => {
      const path = freshPath();
      const db = new Database(path);
      db.run("CREATE TABLE bookmarks (url TEXT)");
      db.close();
      return path;
    },
    code: "E_BAD_INPUT",
    message: /another application/,
  },
  { name: "a folder that does not exist", make: () => join(dir, "missing", "x.db"), code: "E_CANNOT_OPEN", message: /does not exist/ },
  {
    name: "a folder",
    make: () => {
      const path = join(dir, `folder-${++n}`);
      mkdirSync(path);
      return path;
    },
    code: "E_CANNOT_OPEN",
    message: /is not a file/,
  },
  // /proc refuses new files even to root, so this holds wherever the tests run.
  { name: "a folder without write permission", make: () => "/proc/gllam-test.db", code: "E_CANNOT_OPEN", message: /cannot open \/proc\/gllam-test\.db/ },
  { name: "a missing file opened read-only", make: () => freshPath(), code: "E_NOT_FOUND", message: /no database at/, options: { readOnly: true } },
  // Checked before anything is opened or made.
  { name: "a negative KNN cache", make: () => freshPath(), code: "E_BAD_INPUT", message: /invalid KNN cache \(MiB\): .*must not be negative/, options: { knnCacheMiB: -1 } },
  { name: "a KNN cache past a WebAssembly memory", make: () => freshPath(), code: "E_BAD_INPUT", message: /at most 4000/, options: { knnCacheMiB: 4096 } },
];

describe("Store refuses bad files and changes nothing", () => {
  test.each(badCases)("$name", async ({ make, code, message, options }) => {
    const path = make();
    const before = snapshot(path);
    await expectGllamError(Store.open(path, options), code, message);
    expect(snapshot(path)).toEqual(before);
  });

  test.skipIf(process.getuid?.() === 0)("a folder without write permission (non-root)", async () => {
    const locked = join(dir, "locked");
    mkdirSync(locked, { mode: 0o500 });
    await expectGllamError(Store.open(join(locked, "x.db")), "E_CANNOT_OPEN");
    expect(existsSync(join(locked, "x.db"))).toBe(false);
  });
});

describe("a file another process is making", () => {
  test("its schema committed between the identity's reads is not taken for another application's", () => {
    const path = freshPath();
    // The other process: the file in WAL mode, its schema not committed yet.
    const maker = new Database(path);
    maker.run("PRAGMA journal_mode = WAL");
    const reader = new Database(path, { readonly: true });
    // It commits its tables and GLLAM's application id (one transaction) right after this process read the id.
    const query = reader.query.bind(reader);
    reader.query = ((sql: string) => {
      const statement = query(sql);
      if (!sql.includes("application_id")) return statement;
      const get = () => {
        const row = statement.get();
        initSchema(maker);
        return row;
      };
      return { get };
    }) as typeof reader.query;
    expect(() => checkSchemaVersion(reader, path)).not.toThrow();
    // The file is a GLLAM memory now, as a fresh look says.
    const again = new Database(path, { readonly: true });
    expect(() => checkSchemaVersion(again, path)).not.toThrow();
    expect(pragma(again, "application_id")).toBe(1196182605);
    for (const db of [again, reader, maker]) db.close();
  });
});
