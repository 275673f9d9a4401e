/**
 * How GLLAM opens SQLite connections: what is at a path (checked before SQLite touches it), the
 * writer's and readers' pragmas, and the rules by which a read handle leaves nothing beside the file.
 */
import { constants, Database } from "bun:sqlite";
import { accessSync, closeSync, constants as fs, existsSync, openSync, readSync, statSync } from "node:fs";
import { basename, dirname } from "node:path";
import { describeError, GllamError } from "./errors.ts";
import { SCHEMA_VERSION, GLLAM_APPLICATION_ID } from "./schema.ts";
import { useExtensionCapableSqlite } from "./sqlite-library.ts";
import { loadVecExtension } from "./vec-extension.ts";

/** The path of a database in memory (gone at close): one connection serves as writer and reader. */
export const MEMORY_PATH = ":memory:";
export const isMemoryPath = (path: string): boolean => path === MEMORY_PATH;

const SQLITE_HEADER = "SQLite format 3\0";

/** How long a write (and opening the file) waits for another process by default (milliseconds). */
export const DEFAULT_BUSY_TIMEOUT_MS = 60_000;
/**
 * Opening waits as long as a write does: a connection's first read can meet another process's lock
 * (a checkpoint of a large WAL during an ingest, a closing connection's last checkpoint), and 5 s
 * was seen to fail an ingest that started beside another on a loaded machine. The store then sets
 * the writer's own wait (setBusyWait).
 */
const OPEN_BUSY_TIMEOUT = `PRAGMA busy_timeout = ${DEFAULT_BUSY_TIMEOUT_MS}`;

/**
 * The page size of a new file (SQLite's default is 4 KB). A static KNN at a million episodes reads
 * ~27 MB of vec0 chunks, 128 KB blobs that SQLite reads one overflow page at a time past the
 * reader's map: with 4 KB pages that was ~6,900 page reads and ~20 ms of a 28 ms scan (on VACUUM
 * INTO copies of one 1M file, the blobs' read 17-21 -> 8-11 ms at 16 KB, 5-6 at 64 KB). On three 1M
 * files built with each size and queried alternately: the scan 26 -> 17-18 ms at 16 KB (16-17 at
 * 64 KB), exact KNN 437-455 -> 367-383 ms, recall p50 29-31 -> 21-23 ms (64 KB: 23-26, its point
 * reads cost more); a seeded file 2.8 -> 4.0 MB (64 KB: 8.7); addEdge 9% slower. An existing file keeps its pages; `gllam backup` writes
 * a copy with these (docs/scale-history.md, "Pages of 16 KB").
 */
export const PAGE_SIZE = 16_384;

/** Pragmas of the single writer connection (DESIGN.md "Store"); busy_timeout first so the rest can wait. */
const WRITER_PRAGMAS = [
  OPEN_BUSY_TIMEOUT,
  // Before journal_mode: switching a new file to WAL writes its header, which fixes the page size.
  `PRAGMA page_size = ${PAGE_SIZE}`,
  "PRAGMA journal_mode = WAL",
  "PRAGMA synchronous = NORMAL",
  "PRAGMA foreign_keys = ON",
  "PRAGMA wal_autocheckpoint = 1000",
  // Statement and savepoint journals stay in memory: on disk they cost a dozen pwrite calls per row.
  // (Large batches should not nest savepoints: an in-memory journal of a long savepoint is slow.)
  // A page cache of up to 256 MiB keeps a million-link graph's indexes off the disk.
  "PRAGMA temp_store = MEMORY",
  "PRAGMA cache_size = -262144",
  // Deleted rows and freed pages are overwritten with zeros, so forgotten text leaves no copy in the
  // file (FAST leaves freelist pages as they were; README "What forget guarantees").
  "PRAGMA secure_delete = ON",
];
// Readers map the file's first 256 MiB (no copy per page read) and cache up to 64 MiB of the rest.
// Mapped pages count in the process's RSS once read: mapping up to 1 GiB held 0.9 GB resident after
// 60 recalls on a 1.36 GB file (1M episodes), 256 MiB held 0.44 GB for a recall ~4% slower. The
// cache holds private copies of pages the kernel caches anyway: 400 questions at 1M filled a 256 MiB
// one (235 MB resident) for no faster recall or BM25 than with 64 MiB (p50 21.2 / 6.2 ms against
// 21.6 / 6.5, alternated; README "Memory at a million"), so a reader stays within ~0.35 GB. A Store
// that writes reads without the map (unmapped, below).
const READER_PRAGMAS = [OPEN_BUSY_TIMEOUT, "PRAGMA query_only = ON", "PRAGMA cache_size = -65536", "PRAGMA mmap_size = 268435456"];
// An in-memory database has no journal file and no other process: the writer's pragmas that make sense there.
const MEMORY_PRAGMAS = ["PRAGMA foreign_keys = ON", "PRAGMA temp_store = MEMORY"];

export type FileState = { kind: "new" | "empty" | "rollback" | "wal" };

const MISSING = `(create one with \`gllam seed\`, \`gllam ingest\` or \`gllam fact add\`)`;

/** What is at the path; throws a clear error, before SQLite touches anything, when it cannot be used. */
export function inspectFile(path: string, options: { mustExist: boolean }): FileState {
  if (!existsSync(path)) {
    if (options.mustExist) throw new GllamError("E_NOT_FOUND", `no database at ${path} ${MISSING}`);
    const folder = dirname(path);
    if (!existsSync(folder) || !statSync(folder).isDirectory()) {
      throw new GllamError("E_CANNOT_OPEN", `cannot create ${path}: folder ${folder} does not exist`);
    }
    if (writeAccess(folder) !== "ok") throw new GllamError("E_CANNOT_OPEN", `cannot create ${path}: folder ${folder} is not writable`);
    return { kind: "new" };
  }
  const stat = statSync(path);
  if (!stat.isFile()) throw new GllamError("E_CANNOT_OPEN", `${path} is not a file`);
  if (stat.size === 0) return { kind: "empty" };
  // The header, then the file format's read and write versions (bytes 18 and 19): 2 means WAL.
  const header = Buffer.alloc(20);
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    readSync(fd, header, 0, header.length, 0);
  } catch (error) {
    throw new GllamError("E_CANNOT_OPEN", `cannot read ${path}: ${describeError(error)}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (header.toString("latin1", 0, SQLITE_HEADER.length) !== SQLITE_HEADER) {
    throw new GllamError("E_NOT_SQLITE", `${path} is not a SQLite database (wrong file header)`);
  }
  return { kind: header[18] === 2 || header[19] === 2 ? "wal" : "rollback" };
}

/** "ok", "denied" (no permission) or "read-only-fs" (EROFS: nobody can write there). */
function writeAccess(path: string): "ok" | "denied" | "read-only-fs" {
  try {
    accessSync(path, fs.W_OK);
    return "ok";
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EROFS" ? "read-only-fs" : "denied";
  }
}

/** A writer needs the file and its folder (where SQLite keeps -wal and -shm) writable. */
export function checkWritable(path: string): void {
  const onReadOnlyFs = "it is on a read-only file system (commands that only read, like recall, can open it)";
  const file = writeAccess(path);
  if (file !== "ok") throw new GllamError("E_CANNOT_OPEN", `cannot write ${path}: ${file === "denied" ? "the file is read-only (commands that only read, like recall, can open it)" : onReadOnlyFs}`);
  const folder = dirname(path);
  const access = writeAccess(folder);
  if (access !== "ok") {
    throw new GllamError("E_CANNOT_OPEN", `cannot write ${path}: ${access === "denied" ? `its folder ${folder} is not writable (SQLite keeps ${basename(path)}-wal and -shm there)` : onReadOnlyFs}`);
  }
}

/**
 * The read handle, opened so that it leaves nothing beside the file (SQLite's rules for WAL
 * readers, https://sqlite.org/wal.html "Read-Only Databases"; a reader needs the -shm file):
 * - a file in rollback mode, or one whose -shm exists (a writer has it open, or left it): a
 *   read-only connection, which creates nothing;
 * - a WAL file without -shm, when the file and its folder are writable: a read-write connection
 *   with query_only=ON. SQLite creates -wal and -shm to read, and this connection, the last to
 *   close, removes them (a read-only connection cannot: that is what left them behind);
 * - a WAL file without -shm on a read-only file system: `immutable=1` (nobody can change it there);
 * - otherwise SQLite would have to create -shm (and -wal) it could never remove, owned by whoever
 *   reads, which can lock the owner out: refused, saying why.
 * The schema is checked through it before anything else reads or writes the file.
 */
export function openReader(path: string, file: FileState, vecPath: string): Database {
  const role = readerRole(path, file);
  const reader = openConnection(path, role, vecPath);
  try {
    if (file.kind !== "empty") checkSchemaVersion(reader, path);
    return reader;
  } catch (error) {
    reader.close();
    throw error;
  }
}

/**
 * A read handle of a worker beside a Store open on the same file (the static KNN's:
 * episodic/knn-beside.ts), opened by the same rules, without the map: pages mapped here would
 * count a second time in the process's resident memory, and the KNN read no faster with it (at 1M,
 * 12.9-15.7 ms against 12.3-13.7 without). Its cache is small: the worker keeps each chunk it has
 * read (kept-chunks.ts), so cached copies of the chunks' pages would only hold memory twice. At 1M
 * a query process peaked 22-29 MB lower with 4 MiB than with the readers' 64 (four alternated
 * pairs), recall as fast and the same hits (README "Memory at a million").
 */
const SIDE_READER_CACHE_KIB = 4096;
export function openSideReader(path: string, vecPath: string): Database {
  const reader = unmapped(openReader(path, inspectFile(path, { mustExist: true }), vecPath));
  reader.run(`PRAGMA cache_size = -${SIDE_READER_CACHE_KIB}`);
  return reader;
}

/**
 * A reader without the map, for a Store that writes. SQLite drops a reader's map whenever another
 * connection has committed, and every mapped page read after that faults in again: the reader
 * of a Store that writes a turn before each recall paid ~2.7 ms a recall at 100K episodes (6.1
 * against 3.4 ms p50) and ~3.5 at 1M. Without writes the map is worth ~0.5 ms a recall up to 100K
 * and nothing at 1M, where it held ~190 MB more resident (README "Memory at a million").
 */
export function unmapped(reader: Database): Database {
  reader.run("PRAGMA mmap_size = 0");
  return reader;
}

export type Role = "writer" | "reader" | "reader-rw" | "reader-immutable" | "memory";

function readerRole(path: string, file: FileState): Role {
  if (file.kind !== "wal" || existsSync(`${path}-shm`)) return "reader";
  const folder = dirname(path);
  const [fileAccess, folderAccess] = [writeAccess(path), writeAccess(folder)];
  if (fileAccess === "ok" && folderAccess === "ok") return "reader-rw";
  if (folderAccess === "read-only-fs" && !existsSync(`${path}-wal`)) return "reader-immutable";
  const why = [fileAccess === "ok" ? "" : "the file is read-only", folderAccess === "ok" ? "" : `its folder ${folder} is not writable`].filter(Boolean).join(" and ");
  throw new GllamError(
    "E_CANNOT_OPEN",
    `cannot read ${path} without leaving ${basename(path)}-shm beside it: it is in WAL mode, has no -shm yet, and ${why}. ` +
      `Open it once with write access (any gllam command that writes creates and removes them), or convert a read-only copy: sqlite3 FILE "PRAGMA journal_mode=DELETE"`,
  );
}

/**
 * Reads the schema version and application id through the read handle, before anything else, in one
 * read transaction: another process making the file may commit its schema between two reads, and
 * its tables without the id it sets in the same commit would read as another application's.
 */
export function checkSchemaVersion(db: Database, path: string): void {
  let version = 0;
  let appId = 0;
  let tables = 0;
  try {
    db.transaction(() => {
      version = db.query<{ user_version: number }, []>("PRAGMA user_version").get()?.user_version ?? 0;
      appId = db.query<{ application_id: number }, []>("PRAGMA application_id").get()?.application_id ?? 0;
      tables = db.query<{ n: number }, []>("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table'").get()?.n ?? 0;
    })();
  } catch (error) {
    throw new GllamError("E_NOT_SQLITE", `${path} is not a readable SQLite database: ${describeError(error)}`);
  }
  if (version > SCHEMA_VERSION) {
    throw new GllamError("E_SCHEMA_NEWER", `${path} has schema version ${version}, newer than this gllam understands (${SCHEMA_VERSION}); upgrade gllam`);
  }
  if (appId !== GLLAM_APPLICATION_ID && tables > 0) {
    throw new GllamError("E_BAD_INPUT", `${path} is a SQLite database of another application, not a GLLAM memory`);
  }
}

// URI flags for the immutable reader (bun:sqlite reads URIs only with numeric flags, which have no
// strict mode: there, a missing named parameter binds NULL instead of throwing).
const IMMUTABLE_FLAGS = constants.SQLITE_OPEN_READONLY | constants.SQLITE_OPEN_URI;

function connect(path: string, role: Role): Database {
  switch (role) {
    case "writer":
    case "memory":
      return new Database(path, { create: true, strict: true });
    case "reader":
      return new Database(path, { readonly: true, strict: true });
    case "reader-rw":
      return new Database(path, { readwrite: true, create: false, strict: true });
    case "reader-immutable":
      return new Database(`file:${encodeURI(path).replace(/[?#]/g, encodeURIComponent)}?immutable=1`, IMMUTABLE_FLAGS);
  }
}

const PRAGMAS: Record<Role, string[]> = {
  writer: WRITER_PRAGMAS,
  reader: READER_PRAGMAS,
  "reader-rw": READER_PRAGMAS,
  "reader-immutable": READER_PRAGMAS,
  memory: MEMORY_PRAGMAS,
};

export function openConnection(path: string, role: Role, vecPath: string): Database {
  useExtensionCapableSqlite();
  let db: Database;
  try {
    db = connect(path, role);
  } catch (error) {
    throw new GllamError("E_CANNOT_OPEN", `cannot open ${path}${role === "writer" || role === "memory" ? "" : " for reading"}: ${describeError(error)}`);
  }
  try {
    for (const pragma of PRAGMAS[role]) db.run(pragma);
    loadVecExtension(db, vecPath);
    return db;
  } catch (error) {
    db.close();
    if (error instanceof GllamError) throw error;
    throw new GllamError("E_CANNOT_OPEN", `cannot open ${path}: ${describeError(error)}`);
  }
}

/**
 * Runs statements on the read handle that query_only refuses although they change nothing in the
 * file: VACUUM INTO (it writes another file), FTS5's integrity-check command (an INSERT that only
 * reads). The handle is query-only again afterwards, whatever happens.
 */
export function runOnReader<T>(db: Database, fn: () => T): T {
  const before = db.query<{ query_only: number }, []>("PRAGMA query_only").get()?.query_only ?? 0;
  db.run("PRAGMA query_only = OFF");
  try {
    return fn();
  } finally {
    db.run(`PRAGMA query_only = ${before ? "ON" : "OFF"}`);
  }
}
