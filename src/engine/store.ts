import type { Database } from "bun:sqlite";
import { resolve } from "node:path";
import { checkWritable, inspectFile, isMemoryPath, MEMORY_PATH, openConnection, openReader } from "./connections.ts";
import { GllamError } from "./errors.ts";
import { resolveVecExtension } from "./vec-extension.ts";

export type StoreOptions = {
  /** Create the file when it does not exist (default true). */
  create?: boolean;
  /** Open only the read handle: nothing in the file can change, nothing is created beside it (default false). */
  readOnly?: boolean;
};

/**
 * One SQLite file: a writer connection for every mutation and a read-only connection for every
 * query, both with sqlite-vec loaded. Other processes may hold their own Store on the same file.
 */
export class Store {
  readonly path: string;
  readonly #writer: Database | undefined;
  readonly #reader: Database;
  readonly #beforeCommit = new Set<() => void>();

  private constructor(path: string, writer: Database | undefined, reader: Database) {
    this.path = path;
    this.#writer = writer;
    this.#reader = reader;
  }

  static async open(path: string, options: StoreOptions = {}): Promise<Store> {
    const vecPath = await resolveVecExtension();
    if (isMemoryPath(path)) return Store.#openMemory(options, vecPath);
    const absolute = resolve(path);
    const file = inspectFile(absolute, { mustExist: options.readOnly === true || options.create === false });
    if (options.readOnly) return new Store(absolute, undefined, openReader(absolute, file, vecPath));
    if (file.kind !== "new") checkWritable(absolute);
    // An existing file is checked through the read handle before the writer's pragmas touch it.
    const early = file.kind === "new" ? undefined : openReader(absolute, file, vecPath);
    let writer: Database | undefined;
    try {
      writer = openConnection(absolute, "writer", vecPath);
      const mode = writer.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get();
      if (mode?.journal_mode !== "wal") throw new GllamError("E_CANNOT_OPEN", `${absolute}: cannot switch to WAL mode`);
      return new Store(absolute, writer, early ?? openConnection(absolute, "reader", vecPath));
    } catch (error) {
      writer?.close();
      early?.close();
      throw error;
    }
  }

  /** `:memory:` is a new, empty database: nothing to read, nothing to change, only to fill. */
  static #openMemory(options: StoreOptions, vecPath: string): Store {
    if (options.readOnly || options.create === false) {
      throw new GllamError("E_NOT_FOUND", `an in-memory database (${MEMORY_PATH}) starts empty: there is nothing in it to ${options.readOnly ? "read" : "change"}`);
    }
    // bun:sqlite gives every ":memory:" connection a database of its own: one connection serves both roles.
    const db = openConnection(MEMORY_PATH, "memory", vecPath);
    return new Store(MEMORY_PATH, db, db);
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

  /**
   * Runs fn in one IMMEDIATE transaction on the writer; a nested call is a savepoint (undone alone
   * when fn throws). Savepoints go through cached statements: bun:sqlite's nested transactions
   * build a wrapper and re-prepare them on every call, which a batch of addEdge calls feels.
   */
  transaction<T>(fn: () => T): T {
    const db = this.db();
    if (!db.inTransaction) {
      return db
        .transaction(() => {
          const result = fn();
          for (const hook of this.#beforeCommit) hook();
          return result;
        })
        .immediate();
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
   * Runs hook at the end of every outermost transaction, before it commits: derived rows that must
   * change with what the transaction wrote (node static vectors) stay in step whoever wrote it.
   * A hook that throws takes the transaction back. Returns a function that removes the hook.
   */
  beforeCommit(hook: () => void): () => void {
    this.#beforeCommit.add(hook);
    return () => this.#beforeCommit.delete(hook);
  }

  close(): void {
    this.#beforeCommit.clear();
    this.#reader.close();
    if (this.#writer !== this.#reader) this.#writer?.close();
  }
}

