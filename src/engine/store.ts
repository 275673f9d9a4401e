import type { Database } from "bun:sqlite";
import { resolve } from "node:path";
import { checkWritable, DEFAULT_BUSY_TIMEOUT_MS, inspectFile, isMemoryPath, MEMORY_PATH, openConnection, openReader, unmapped } from "./connections.ts";

export { DEFAULT_BUSY_TIMEOUT_MS };
import { GllamError } from "./errors.ts";
import * as v from "valibot";
import { parseInput } from "../memory/parse.ts";
import { resolveVecExtension } from "./vec-extension.ts";

export type StoreOptions = {
  /** Create the file when it does not exist (default true). */
  create?: boolean;
  /** Open only the read handle: nothing in the file can change, nothing is created beside it (default false). */
  readOnly?: boolean;
  /**
   * Who checkpoints the WAL: GLLAM (SQLite's autocheckpoint, and GLLAM's own during ingest and
   * after forget), or "external": a replicator such as Litestream owns the WAL, and GLLAM sets
   * wal_autocheckpoint = 0 and starts no checkpoint of its own (default "gllam").
   */
  checkpoints?: "gllam" | "external";
  /**
   * The most memory, in MiB, the static KNN's worker keeps cell vectors in between recalls
   * (src/episodic/kept-chunks.ts; default 512, 0 keeps none; at most 4000, a WebAssembly memory's
   * limit). A recall over a million episodes reads ~22 MB of them.
   */
  knnCacheMiB?: number;
};

export const DEFAULT_KNN_CACHE_MIB = 512;
/** MiB of kept cell vectors ($GLLAM_KNN_CACHE_MB, StoreOptions.knnCacheMiB). */
export const KnnCacheMiBSchema = v.pipe(v.number(), v.integer("must be a whole number of MiB"), v.minValue(0, "must not be negative"), v.maxValue(4000, "must be at most 4000 (a WebAssembly memory holds 4 GiB)"));

type StoreSettings = { externalCheckpoints: boolean; knnCacheBytes: number };

/** The options checked (before anything is opened) and resolved. */
const storeSettings = (options: StoreOptions): StoreSettings => ({
  externalCheckpoints: options.checkpoints === "external",
  knnCacheBytes: parseInput(KnnCacheMiBSchema, options.knnCacheMiB ?? DEFAULT_KNN_CACHE_MIB, "KNN cache (MiB)") * 2 ** 20,
});

/** How long a write waits for another process's write transaction (milliseconds, 0 = not at all). */
export const BusyTimeoutMsSchema = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(86_400_000, "must be at most a day"));
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
  /** A replicator checkpoints the WAL (StoreOptions.checkpoints): GLLAM starts none of its own. */
  readonly externalCheckpoints: boolean;
  /** Bytes of cell vectors the static KNN's worker may keep (StoreOptions.knnCacheMiB). */
  readonly knnCacheBytes: number;
  readonly #writer: Database | undefined;
  readonly #reader: Database;
  readonly #beforeCommit = new Set<() => void>();
  readonly #onClose = new Set<() => void>();
  #closed = false;
  #busy: { timeoutMs: number; onWait?: BusyWaitOptions["onWait"] } = { timeoutMs: DEFAULT_BUSY_TIMEOUT_MS };

  private constructor(path: string, writer: Database | undefined, reader: Database, settings: StoreSettings) {
    this.path = path;
    this.externalCheckpoints = settings.externalCheckpoints;
    this.knnCacheBytes = settings.knnCacheBytes;
    this.#writer = writer;
    this.#reader = reader;
  }

  static async open(path: string, options: StoreOptions = {}): Promise<Store> {
    const settings = storeSettings(options);
    const vecPath = await resolveVecExtension();
    if (isMemoryPath(path)) return Store.#openMemory(options, settings, vecPath);
    const absolute = resolve(path);
    const file = inspectFile(absolute, { mustExist: options.readOnly === true || options.create === false });
    if (options.readOnly) return new Store(absolute, undefined, openReader(absolute, file, vecPath), settings);
    if (file.kind !== "new") checkWritable(absolute);
    // An existing file is checked through the read handle before the writer's pragmas touch it.
    const early = file.kind === "new" ? undefined : openReader(absolute, file, vecPath);
    let writer: Database | undefined;
    try {
      writer = openConnection(absolute, "writer", vecPath);
      const mode = writer.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get();
      if (mode?.journal_mode !== "wal") throw new GllamError("E_CANNOT_OPEN", `${absolute}: cannot switch to WAL mode`);
      if (options.checkpoints === "external") writer.run("PRAGMA wal_autocheckpoint = 0");
      return new Store(absolute, writer, unmapped(early ?? openConnection(absolute, "reader", vecPath)), settings);
    } catch (error) {
      writer?.close();
      early?.close();
      throw error;
    }
  }

  /** `:memory:` is a new, empty database: nothing to read, nothing to change, only to fill. */
  static #openMemory(options: StoreOptions, settings: StoreSettings, vecPath: string): Store {
    if (options.readOnly || options.create === false) {
      throw new GllamError("E_NOT_FOUND", `an in-memory database (${MEMORY_PATH}) starts empty: there is nothing in it to ${options.readOnly ? "read" : "change"}`);
    }
    // bun:sqlite gives every ":memory:" connection a database of its own: one connection serves both roles.
    const db = openConnection(MEMORY_PATH, "memory", vecPath);
    return new Store(MEMORY_PATH, db, db, settings);
  }

  get readOnly(): boolean {
    return this.#writer === undefined;
  }

  /** The writer connection. */
  db(): Database {
    if (!this.#writer) throw new GllamError("E_READ_ONLY", `${this.path} was opened read-only`);
    return this.#writer;
  }

  /** The read connection (query_only=ON: writes through it fail; for `:memory:`, the writer itself). */
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
        for (const hook of this.#beforeCommit) hook();
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

  /**
   * Runs fn on the writer in a transaction that is always rolled back, for statements that need
   * write access but must change nothing (FTS5's integrity-check command). Waits for another
   * process's write like transaction().
   */
  probe<T>(fn: (db: Database) => T): T {
    const db = this.db();
    if (db.inTransaction) throw new GllamError("E_BAD_INPUT", "a probe cannot run inside a transaction");
    this.#begin(db);
    try {
      return fn(db);
    } finally {
      db.query("ROLLBACK").run();
    }
  }

  /**
   * Runs hook at the end of every outermost transaction, before it commits: derived rows that must
   * change with what the transaction wrote (node static vectors) stay in step whoever wrote it.
   * A hook that throws takes the transaction back. Returns a function that removes the hook.
   */
  beforeCommit(hook: () => void): () => void {
    this.#beforeCommit.add(hook);
    return () => this.#beforeCommit.delete(hook);
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

  /**
   * Runs hook when the store closes, before its own connections close: a worker's connection to the
   * same file (the static KNN's, episodic/knn-beside.ts) is closed first, so the store's last
   * connection is the one that cleans up beside the file. On a store already closed the hook runs
   * at once (a warm-up started after a stop ends at once). Returns a function that removes the hook.
   */
  onClose(hook: () => void): () => void {
    if (this.#closed) {
      hook();
      return () => {};
    }
    this.#onClose.add(hook);
    return () => this.#onClose.delete(hook);
  }

  close(): void {
    this.#closed = true;
    for (const hook of this.#onClose) hook();
    this.#onClose.clear();
    this.#beforeCommit.clear();
    this.#reader.close();
    if (this.#writer !== this.#reader) this.#writer?.close();
  }
}

