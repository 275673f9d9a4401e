/**
 * `gllam import FILE`: an export restored into this database in ONE transaction for the whole file.
 * Every line is checked (valibot; errors name file:line and the field) and every row keeps its id,
 * so the references inside the memory (metadata naming link ids, provenance naming episodes) stay
 * true. Any bad line, an id the database already holds, a scope that already holds memory here,
 * or a reference that leaves its scope or points nowhere: nothing is written.
 * Vectors are recomputed (the static tier at once, the model tier queued for `gllam reembed`), or
 * carried from the file with withVectors when they come from the active embedders.
 */
import { existsSync, statSync } from "node:fs";
import type { Database } from "bun:sqlite";
import type { EmbeddingTiers } from "../embed/embedder.ts";
import { describeError, GllamError } from "../engine/errors.ts";
import { readSchemaVersion, SAME_TABLES_SINCE, SCHEMA_VERSION } from "../engine/schema.ts";
import type { Store } from "../engine/store.ts";
import { dumpColumns, findCrossScopeRef, hasScopeColumn, recordSchema, rowInserter, type DumpRow, type TableDump } from "../engine/table-dump.ts";
import { fileBlocks, readTextLines, type TextLine } from "../episodic/formats/text-lines.ts";
import { buildLargeScopeCells } from "../episodic/episode-cells.ts";
import { writeStaticVectors } from "../episodic/static-vectors.ts";
import { checkInput, parseScope } from "../memory/parse.ts";
import { DUMPS, HeaderSchema, type ExportHeader } from "./export-format.ts";
import { VectorRecordSchema, vectorWriter, type VectorRecord } from "./vector-dump.ts";

export type ImportOptions = {
  /** Write the vectors the file carries (they must come from the active embedders) instead of recomputing them. */
  withVectors?: boolean;
  /** The active embedders: the static tier recomputes episode vectors; carried vectors must be theirs. */
  tiers: EmbeddingTiers;
};

export type ImportReport = {
  file: string;
  scopes: string[];
  /** Rows written per record type. */
  records: Record<string, number>;
  /** Episode static vectors computed at import. */
  staticVectors: number;
  /** Vectors written from the file. */
  carriedVectors: number;
  /** Vectors in the file left out (recomputed instead: no withVectors). */
  ignoredVectors: number;
  /** Episodes and nodes of the imported scopes waiting for a model vector (`gllam reembed`). */
  queued: number;
};

/** The longest line read: an episode of a million characters, JSON-escaped, fits. */
const MAX_LINE_BYTES = 64 << 20;
/** Episodes embedded by the static tier at once. */
const STATIC_BATCH = 1000;

type Table = { dump: TableDump; scoped: boolean; check: (row: unknown) => ReturnType<typeof checkInput>; insert: (row: DumpRow) => void };
type EpisodeText = { id: number; scope: string; speaker: string; content: string };

export function importMemory(store: Store, path: string, options: ImportOptions): ImportReport {
  if (!existsSync(path) || !statSync(path).isFile()) throw new GllamError("E_NOT_FOUND", `no file at ${path}`);
  return store.transaction(() => {
    // References are checked when the file is in: links point at later links (superseded_by).
    store.db().run("PRAGMA defer_foreign_keys = ON");
    const importer = new Importer(store, path, options);
    for (const line of readTextLines(fileBlocks(path), { file: path, maxLineBytes: MAX_LINE_BYTES, longLines: "bad" })) importer.read(line);
    return importer.finish();
  });
}

class Importer {
  readonly #store: Store;
  readonly #db: Database;
  readonly #path: string;
  readonly #options: ImportOptions;
  readonly #tables: Map<string, Table>;
  readonly #scopes = new Set<string>();
  readonly #report: ImportReport;
  #header: ExportHeader | undefined;
  #writeVector: ((record: VectorRecord) => void) | undefined;
  #recomputeStatic = true;
  #episodes: EpisodeText[] = [];

  constructor(store: Store, path: string, options: ImportOptions) {
    this.#store = store;
    this.#db = store.db();
    this.#path = path;
    this.#options = options;
    this.#report = { file: path, scopes: [], records: {}, staticVectors: 0, carriedVectors: 0, ignoredVectors: 0, queued: 0 };
    this.#tables = new Map(
      DUMPS.map((dump) => {
        const columns = dumpColumns(this.#db, dump);
        const schema = recordSchema(dump, columns);
        return [dump.record, { dump, scoped: hasScopeColumn(columns), check: (row: unknown) => checkInput(schema, row), insert: rowInserter(this.#db, dump, columns) }];
      }),
    );
  }

  read(line: TextLine): void {
    const where = `${this.#path}:${line.line}`;
    if ("problem" in line) throw new GllamError("E_BAD_INPUT", `${where}: ${line.problem}`);
    if (line.text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line.text);
    } catch (error) {
      throw new GllamError("E_BAD_INPUT", `${where}: invalid JSON (${describeError(error)})`);
    }
    if (!this.#header) return this.#readHeader(value, where);
    const record = (value as { record?: unknown } | null)?.record;
    if (record === "vector") return this.#readVector(value, where);
    const table = typeof record === "string" ? this.#tables.get(record) : undefined;
    if (!table) throw new GllamError("E_BAD_INPUT", `${where}: unknown record ${JSON.stringify(record ?? null)} (expected one of ${[...this.#tables.keys(), "vector"].join(", ")})`);
    const checked = table.check(value);
    if (!checked.ok) throw new GllamError("E_BAD_INPUT", `${where}: invalid ${table.dump.record}: ${checked.problem}`);
    const { record: _, ...row } = checked.value as DumpRow;
    if (table.scoped) this.#claimScope(row.scope, where);
    else this.#checkParents(table.dump, row, where);
    try {
      table.insert(row);
    } catch (error) {
      throw this.#refused(error, table.dump, row, where);
    }
    table.dump.restore?.(this.#store, row);
    this.#count(table.dump.record);
    if (table.dump.table === "episodes" && this.#recomputeStatic) this.#queueStatic(row as EpisodeText);
  }

  #readHeader(value: unknown, where: string): void {
    const checked = checkInput(HeaderSchema, value);
    if (!checked.ok) throw new GllamError("E_BAD_INPUT", `${where}: not the header of a gllam export: ${checked.problem}`);
    const header = checked.value;
    const schema = readSchemaVersion(this.#db);
    const sameTables = header.schema === schema || (schema === SCHEMA_VERSION && header.schema >= SAME_TABLES_SINCE && header.schema < schema);
    if (!sameTables) throw new GllamError("E_BAD_INPUT", `${where}: exported from a database of schema version ${header.schema}; this one has ${schema}`);
    if (this.#options.withVectors) {
      if (!header.models) throw new GllamError("E_BAD_INPUT", `${where}: the file carries no vectors (export it with --with-vectors, or import it without)`);
      this.#checkModel("model", header.models.model?.version, this.#options.tiers.model?.modelVersion, where);
      this.#checkModel("static", header.models.static?.version, this.#options.tiers.static?.modelVersion, where);
      this.#writeVector = vectorWriter(this.#db, header.models);
      this.#recomputeStatic = header.models.static === null;
    }
    this.#header = header;
  }

  #checkModel(tier: string, file: string | undefined, active: string | undefined, where: string): void {
    if (file === undefined || file === active) return;
    throw new GllamError(
      "E_EMBEDDING_DRIFT",
      `${where}: the file's ${tier}-tier vectors come from ${file}, the active ${tier} tier is ${active ?? "off"}: import without --with-vectors to recompute them, or with the embedder that made them`,
    );
  }

  #readVector(value: unknown, where: string): void {
    const checked = checkInput(VectorRecordSchema, value);
    if (!checked.ok) throw new GllamError("E_BAD_INPUT", `${where}: invalid vector: ${checked.problem}`);
    if (!this.#writeVector) {
      this.#report.ignoredVectors++;
      return;
    }
    const record = checked.value;
    const owner = this.#scopeOf(record.kind === "node" ? "semantic_nodes" : "episodes", record.id);
    if (owner === undefined || owner !== record.scope || !this.#scopes.has(owner)) {
      throw new GllamError("E_BAD_INPUT", `${where}: a vector of ${record.kind} ${record.id} of scope ${record.scope}, which is not in this file before it`);
    }
    try {
      this.#writeVector(record);
    } catch (error) {
      if (error instanceof GllamError) throw new GllamError(error.code, `${where}: ${error.message}`);
      throw error;
    }
    this.#report.carriedVectors++;
  }

  /** A scope's first row: the scope must be valid, the export's, and hold nothing in this database yet. */
  #claimScope(value: unknown, where: string): void {
    const scope = String(value);
    if (this.#scopes.has(scope)) return;
    if (parseScope(scope, `scope at ${where}`) !== scope) throw new GllamError("E_BAD_INPUT", `${where}: scope ${JSON.stringify(scope)} is not in normal form`);
    if (this.#header!.scope !== null && scope !== this.#header!.scope) throw new GllamError("E_BAD_INPUT", `${where}: a row of scope ${scope} in an export of scope ${this.#header!.scope}`);
    for (const table of this.#tables.values()) {
      if (!table.scoped || !this.#db.query(`SELECT 1 FROM ${table.dump.table} WHERE scope = ? LIMIT 1`).get(scope)) continue;
      throw new GllamError(
        "E_CONFLICT",
        `${where}: scope ${scope} already holds memory in ${this.#store.path} (${table.dump.table}); an import fills only scopes that are empty there: import into another database, or forget the scope's memory first`,
      );
    }
    this.#scopes.add(scope);
  }

  /** A row without a scope of its own (a link event, a mention): what it hangs on came earlier in the file, all of one scope. */
  #checkParents(dump: TableDump, row: DumpRow, where: string): void {
    const scopes = new Set<string | undefined>();
    for (const ref of dump.refs ?? []) {
      const scope = this.#scopeOf(ref.table, row[ref.column]);
      if (scope === undefined || !this.#scopes.has(scope)) throw new GllamError("E_BAD_INPUT", `${where}: ${dump.record} points at ${ref.table} ${String(row[ref.column])}, which is not in this file before it`);
      scopes.add(scope);
    }
    if (scopes.size > 1) throw new GllamError("E_BAD_INPUT", `${where}: ${dump.record} joins rows of scopes ${[...scopes].join(" and ")}`);
  }

  #scopeOf(table: string, id: unknown): string | undefined {
    return this.#db.query<{ scope: string }, [string | number]>(`SELECT scope FROM ${table} WHERE id = ?`).get(id as string | number)?.scope;
  }

  #refused(error: unknown, dump: TableDump, row: DumpRow, where: string): GllamError {
    const message = describeError(error);
    const what = `${dump.record}${row.id === undefined ? "" : ` ${String(row.id)}`}`;
    if (/UNIQUE constraint failed/.test(message)) {
      return new GllamError("E_CONFLICT", `${where}: ${what} is already in ${this.#store.path} (${message}); an import keeps every id, so it goes into a database that does not hold them`);
    }
    return new GllamError("E_BAD_INPUT", `${where}: ${what}: ${message}`);
  }

  #count(record: string): void {
    this.#report.records[record] = (this.#report.records[record] ?? 0) + 1;
  }

  #queueStatic(episode: EpisodeText): void {
    if (!this.#options.tiers.static) return;
    this.#episodes.push({ id: episode.id, scope: episode.scope, speaker: episode.speaker, content: episode.content });
    if (this.#episodes.length >= STATIC_BATCH) this.#flushStatic();
  }

  #flushStatic(): void {
    if (this.#episodes.length > 0 && this.#options.tiers.static) this.#report.staticVectors += writeStaticVectors(this.#db, this.#options.tiers.static, this.#episodes);
    this.#episodes = [];
  }

  finish(): ImportReport {
    if (!this.#header) throw new GllamError("E_BAD_INPUT", `${this.#path}: empty: not a gllam export`);
    this.#flushStatic();
    const scopes = [...this.#scopes];
    for (const table of this.#tables.values()) {
      const crossing = table.scoped ? findCrossScopeRef(this.#db, table.dump, scopes) : undefined;
      if (crossing) throw new GllamError("E_BAD_INPUT", `${this.#path}: ${crossing}`);
    }
    const dangling = this.#db.query<{ table: string; rowid: number; parent: string }, []>("PRAGMA foreign_key_check").get();
    if (dangling) {
      throw new GllamError("E_BAD_INPUT", `${this.#path}: ${dangling.table} row ${dangling.rowid} points at a missing ${dangling.parent} row (in the file, or already in the database: \`gllam doctor\` checks it)`);
    }
    // Episode ids forgotten before the export are never given again here either.
    this.#db
      .query("INSERT INTO sqlite_sequence (name, seq) SELECT 'episodes', ?1 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'episodes')")
      .run(this.#header.episode_sequence);
    this.#db.query("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'episodes'").run(this.#header.episode_sequence);
    const list = JSON.stringify(scopes);
    this.#report.queued = this.#db
      .query<{ n: number }, [string]>(
        `SELECT (SELECT count(*) FROM episode_vector_queue q JOIN episodes e ON e.id = q.episode_id WHERE e.scope IN (SELECT value FROM json_each(?1)))
              + (SELECT count(*) FROM node_vector_queue q JOIN semantic_nodes n ON n.id = q.node_id WHERE q.tier = 'model' AND n.scope IN (SELECT value FROM json_each(?1))) AS n`,
      )
      .get(list)!.n;
    // Carried vectors went in as rows, past maintainCells: the large scopes get their cells now.
    const carried = this.#options.withVectors ? this.#header.models : null;
    for (const tier of ["static", "model"] as const) {
      const model = carried?.[tier];
      if (model) buildLargeScopeCells(this.#db, tier, model.dims, scopes);
    }
    this.#report.scopes = scopes;
    return this.#report;
  }
}
