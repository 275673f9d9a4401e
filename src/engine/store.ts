import { Database } from "bun:sqlite";
import * as v from "valibot";
import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { describeError, GllamError } from "./errors.ts";
import { parseInput } from "../memory/parse.ts";
import { SCHEMA_VERSION, GLLAM_APPLICATION_ID } from "./schema.ts";
import { loadVecExtension, resolveVecExtension } from "./vec-extension.ts";

export type StoreOptions = {
  /** Create the file when it does not exist (default true). */
  create?: boolean;
  /** Open only the read handle: nothing in the file can change (default false). */
  readOnly?: boolean;
};

const SQLITE_HEADER = "SQLite format 3\0";

/** Pragmas of the single writer connection (DESIGN.md "Store"); busy_timeout first so the rest can wait. */
const WRITER_PRAGMAS = [
  "PRAGMA busy_timeout = 5000",
  "PRAGMA journal_mode = WAL",
  "PRAGMA synchronous = NORMAL",
  "PRAGMA foreign_keys = ON",
  "PRAGMA wal_autocheckpoint = 1000",
  // Statement and savepoint journals stay in memory: on disk they cost a dozen pwrite calls per row.
  // (Large batches should not nest savepoints: an in-memory journal of a long savepoint is slow.)
  // A page cache of up to 256 MiB keeps a million-link graph's indexes off the disk.
  "PRAGMA temp_store = MEMORY",
  "PRAGMA cache_size = -262144",
];
// Readers map the file (no copy per page read) and cache up to 256 MiB: graph walks touch pages all over it.
const READER_PRAGMAS = ["PRAGMA busy_timeout = 5000", "PRAGMA query_only = ON", "PRAGMA cache_size = -262144", "PRAGMA mmap_size = 1073741824"];

/** How long a write waits for another process's write transaction (milliseconds, 0 = not at all). */
export const BusyTimeoutMsSchema = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(86_400_000, "must be at most a day"));
export const DEFAULT_BUSY_TIMEOUT_MS = 60_000;
/** Each attempt to take the write lock waits this long inside SQLite's busy handler before the next. */
const BUSY_SLICE_MS = 1000;

export type BusyWaitOptions = {
  /** Default 60 s; then the write fails with E_BUSY. */
  timeoutMs?: number;
  /** Called once by each write that has to wait for another writer (after its first attempt). */
  onWait?: (info: { path: string; timeoutMs: number }) => void;
};

const isBusyError = (error: unknown) => typeof (error as { code?: unknown })?.code === "string" && (error as { code: string }).code.startsWith("SQLITE_BUSY");

/**
 * One SQLite file: a writer connection for every mutation and a read-only connection for every
 * query, both with sqlite-vec loaded. Other processes may hold their own Store on the same file.
 */
export class Store {
  readonly path: string;
  readonly #writer: Database | undefined;
  readonly #reader: Database;
  #busy: { timeoutMs: number; onWait?: BusyWaitOptions["onWait"] } = { timeoutMs: DEFAULT_BUSY_TIMEOUT_MS };

  private constructor(path: string, writer: Database | undefined, reader: Database) {
    this.path = path;
    this.#writer = writer;
    this.#reader = reader;
  }

  static async open(path: string, options: StoreOptions = {}): Promise<Store> {
    const absolute = resolve(path);
    const exists = checkExistingFile(absolute, options);
    if (exists) checkSchemaVersion(absolute);
    const vecPath = await resolveVecExtension();
    const writer = options.readOnly ? undefined : openConnection(absolute, false, vecPath);
    try {
      if (writer) {
        const mode = writer.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get();
        if (mode?.journal_mode !== "wal") throw new GllamError("E_CANNOT_OPEN", `${absolute}: cannot switch to WAL mode`);
      }
      return new Store(absolute, writer, openConnection(absolute, true, vecPath));
    } catch (error) {
      writer?.close();
      throw error;
    }
  }

  get readOnly(): boolean {
    return this.#writer === undefined;
  }

  /** The writer connection. */
  db(): Database {
    if (!this.#writer) throw new GllamError("E_READ_ONLY", `${this.path} was opened read-only`);
    return this.#writer;
  }

  /** The read-only connection (query_only=ON): writes through it fail. */
  dbRO(): Database {
    return this.#reader;
  }

  /** How every write transaction waits for another process's (see transaction()). */
  setBusyWait(options: BusyWaitOptions): void {
    const timeoutMs = options.timeoutMs === undefined ? DEFAULT_BUSY_TIMEOUT_MS : parseInput(BusyTimeoutMsSchema, options.timeoutMs, "busy timeout");
    this.#busy = { timeoutMs, onWait: options.onWait };
    // SQLite's own busy handler waits one slice per attempt; the loop in #begin adds the rest.
    this.#writer?.run(`PRAGMA busy_timeout = ${Math.min(timeoutMs, BUSY_SLICE_MS)}`);
  }

  /**
   * Runs fn in one IMMEDIATE transaction on the writer; a nested call is a savepoint (undone alone
   * when fn throws). While another process holds the write lock, the transaction waits for it (up
   * to the busy timeout, telling onWait) before fn runs. Savepoints go through cached statements:
   * bun:sqlite's nested transactions build a wrapper and re-prepare them on every call, which a
   * batch of addEdge calls feels.
   */
  transaction<T>(fn: () => T): T {
    const db = this.db();
    if (!db.inTransaction) {
      this.#begin(db);
      try {
        // A statement that reads the file checks its schema cookie and reloads the schema if another
        // process changed it (a new vec0 table, say): preparing an INSERT into an FTS5-indexed table
        // against the stale schema fails with "no such table" instead.
        db.query("SELECT 1 FROM sqlite_schema LIMIT 1").get();
        const result = fn();
        db.query("COMMIT").run();
        return result;
      } catch (error) {
        if (db.inTransaction) db.query("ROLLBACK").run();
        throw error;
      }
    }
    db.query("SAVEPOINT gllam_nested").run();
    try {
      const result = fn();
      db.query("RELEASE gllam_nested").run();
      return result;
    } catch (error) {
      db.query("ROLLBACK TO gllam_nested").run();
      db.query("RELEASE gllam_nested").run();
      throw error;
    }
  }

  /** BEGIN IMMEDIATE, retried while another writer holds the lock; E_BUSY once the busy timeout has passed. */
  #begin(db: Database): void {
    const started = Date.now();
    let announced = false;
    for (;;) {
      try {
        db.query("BEGIN IMMEDIATE").run();
        return;
      } catch (error) {
        if (!isBusyError(error)) throw error;
        const waited = Date.now() - started;
        const { timeoutMs, onWait } = this.#busy;
        if (waited >= timeoutMs) {
          throw new GllamError(
            "E_BUSY",
            `${this.path}: another process kept the database locked for ${(waited / 1000).toFixed(1)} s; gave up waiting (raise --busy-timeout or $GLLAM_BUSY_TIMEOUT)`,
          );
        }
        if (!announced) onWait?.({ path: this.path, timeoutMs });
        announced = true;
        // SQLite's busy handler already slept on this attempt; a short pause keeps a timeout of 0 from spinning.
        Bun.sleepSync(Math.min(10, timeoutMs - waited));
      }
    }
  }

  close(): void {
    this.#reader.close();
    this.#writer?.close();
  }
}

/** Returns whether the file exists; throws a clear error, before SQLite touches anything, when it cannot be used. */
function checkExistingFile(path: string, options: StoreOptions): boolean {
  if (!existsSync(path)) {
    if (options.readOnly || options.create === false) {
      throw new GllamError("E_NOT_FOUND", `no database at ${path} (create one with \`gllam seed\` or \`gllam ingest\`)`);
    }
    const folder = dirname(path);
    if (!existsSync(folder) || !statSync(folder).isDirectory()) {
      throw new GllamError("E_CANNOT_OPEN", `cannot create ${path}: folder ${folder} does not exist`);
    }
    return false;
  }
  const stat = statSync(path);
  if (!stat.isFile()) throw new GllamError("E_CANNOT_OPEN", `${path} is not a file`);
  if (stat.size === 0) return false;
  const header = Buffer.alloc(SQLITE_HEADER.length);
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    readSync(fd, header, 0, header.length, 0);
  } catch (error) {
    throw new GllamError("E_CANNOT_OPEN", `cannot read ${path}: ${describeError(error)}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (header.toString("latin1") !== SQLITE_HEADER) {
    throw new GllamError("E_NOT_SQLITE", `${path} is not a SQLite database (wrong file header)`);
  }
  return true;
}

/** Reads the schema version through a read-only connection so a refused file is left untouched. */
function checkSchemaVersion(path: string): void {
  let probe: Database | undefined;
  try {
    probe = new Database(path, { readonly: true });
    const version = probe.query<{ user_version: number }, []>("PRAGMA user_version").get()?.user_version ?? 0;
    const appId = probe.query<{ application_id: number }, []>("PRAGMA application_id").get()?.application_id ?? 0;
    const tables = probe.query<{ n: number }, []>("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table'").get()?.n ?? 0;
    if (version > SCHEMA_VERSION) {
      throw new GllamError(
        "E_SCHEMA_NEWER",
        `${path} has schema version ${version}, newer than this gllam understands (${SCHEMA_VERSION}); upgrade gllam`,
      );
    }
    if (appId !== GLLAM_APPLICATION_ID && tables > 0) {
      throw new GllamError("E_BAD_INPUT", `${path} is a SQLite database of another application, not a GLLAM memory`);
    }
  } catch (error) {
    if (error instanceof GllamError) throw error;
    throw new GllamError("E_NOT_SQLITE", `${path} is not a readable SQLite database: ${describeError(error)}`);
  } finally {
    probe?.close();
  }
}

function openConnection(path: string, readonly: boolean, vecPath: string): Database {
  let db: Database;
  try {
    db = readonly ? new Database(path, { readonly: true, strict: true }) : new Database(path, { create: true, strict: true });
  } catch (error) {
    throw new GllamError("E_CANNOT_OPEN", `cannot open ${path}${readonly ? " for reading" : ""}: ${describeError(error)}`);
  }
  try {
    for (const pragma of readonly ? READER_PRAGMAS : WRITER_PRAGMAS) db.run(pragma);
    loadVecExtension(db, vecPath);
    return db;
  } catch (error) {
    db.close();
    if (error instanceof GllamError) throw error;
    throw new GllamError("E_CANNOT_OPEN", `cannot open ${path}: ${describeError(error)}`);
  }
}
