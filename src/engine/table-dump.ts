/**
 * Tables as records (lines of an export file) and back. A layer names its tables: the record
 * type, the order, which rows belong to a scope, which columns hold JSON and which rows they
 * point at; the columns themselves come from the schema (PRAGMA table_info), so a record holds
 * every column under its own name, in table order, and a new column is exported without a change here.
 */
import type { Database } from "bun:sqlite";
import * as v from "valibot";
import type { Store } from "./store.ts";

/** A row pointing at a row of `table` (by its `id`) through `column`; it must stay within its scope. */
export type RowRef = { column: string; table: string };

export type TableDump = {
  /** The record's name in the file (its `record` field). */
  record: string;
  table: string;
  /** ORDER BY: the table's key, so an export always comes out in one order. */
  order: string;
  /** The rows of scope ?1, as an SQL condition. */
  scoped: string;
  /** Columns holding JSON text, written as JSON values, with the shape each must have. */
  json?: Readonly<Record<string, v.GenericSchema>>;
  /**
   * For a table with a scope column: rows it points at, which must be of the same scope. For one
   * without: its parents, which must come earlier in the file (and so belong to one of its scopes).
   */
  refs?: readonly RowRef[];
  /** Rows derived from the record's own (a node's name keys), rebuilt after it is written. */
  restore?: (store: Store, row: DumpRow) => void;
};

export type DumpRow = Record<string, unknown>;
type ColumnKind = "text" | "integer" | "real" | "blob" | "json";
export type DumpColumn = { name: string; kind: ColumnKind; nullable: boolean };

/** The table's columns as the schema declares them. */
export function dumpColumns(db: Database, dump: TableDump): DumpColumn[] {
  const info = db.query<{ name: string; type: string; notnull: number; pk: number }, []>(`SELECT name, type, "notnull", pk FROM pragma_table_info('${dump.table}')`).all();
  return info.map((column) => ({
    name: column.name,
    kind: dump.json && column.name in dump.json ? "json" : (column.type.toLowerCase() as ColumnKind),
    // An INTEGER PRIMARY KEY is the rowid: never null, whatever notnull says.
    nullable: column.notnull === 0 && !(column.pk > 0 && column.type.toUpperCase() === "INTEGER"),
  }));
}

export const hasScopeColumn = (columns: DumpColumn[]): boolean => columns.some((column) => column.name === "scope");

/** The rows of a scope (every scope for null), in the dump's order, read one at a time. */
export function* dumpRows(db: Database, dump: TableDump, columns: DumpColumn[], scope: string | null): Generator<DumpRow> {
  const names = columns.map((column) => `"${column.name}"`).join(", ");
  const json = columns.filter((column) => column.kind === "json").map((column) => column.name);
  const rows = db.query<DumpRow, [string | null]>(`SELECT ${names} FROM ${dump.table} WHERE ?1 IS NULL OR (${dump.scoped}) ORDER BY ${dump.order}`);
  for (const row of rows.iterate(scope)) {
    for (const name of json) if (row[name] !== null) row[name] = JSON.parse(row[name] as string);
    yield row;
  }
}

const SCHEMAS: Record<Exclude<ColumnKind, "json">, v.GenericSchema> = {
  text: v.string(),
  integer: v.pipe(v.number(), v.safeInteger("must be an integer")),
  real: v.pipe(v.number(), v.finite()),
  blob: v.string(),
};

/** The valibot schema of the table's record: every column, of its kind (JSON of its shape), nothing else. */
export function recordSchema(dump: TableDump, columns: DumpColumn[]) {
  const entries = Object.fromEntries(
    columns.map((column) => {
      const schema = column.kind === "json" ? dump.json![column.name]! : SCHEMAS[column.kind];
      return [column.name, column.nullable ? v.nullable(schema) : schema];
    }),
  );
  return v.strictObject({ record: v.literal(dump.record), ...entries });
}

/** Writes one record's row as it is (ids included); the caller holds the transaction. */
export function rowInserter(db: Database, dump: TableDump, columns: DumpColumn[]): (row: DumpRow) => void {
  const names = columns.map((column) => `"${column.name}"`).join(", ");
  const insert = db.query(`INSERT INTO ${dump.table} (${names}) VALUES (${columns.map(() => "?").join(", ")})`);
  return (row) =>
    insert.run(
      ...columns.map((column) => {
        const value = row[column.name] ?? null;
        return (column.kind === "json" && value !== null ? JSON.stringify(value) : value) as string | number | null;
      }),
    );
}

/** The first row of the scopes whose reference leaves its scope, described; undefined when there is none. */
export function findCrossScopeRef(db: Database, dump: TableDump, scopes: string[]): string | undefined {
  for (const ref of dump.refs ?? []) {
    const row = db
      .query<{ key: unknown; scope: string; other: string; target: unknown }, [string]>(
        `SELECT c.rowid AS key, c.scope, p.scope AS other, p.id AS target FROM ${dump.table} c JOIN ${ref.table} p ON p.id = c."${ref.column}"
         WHERE c.scope IN (SELECT value FROM json_each(?1)) AND p.scope <> c.scope LIMIT 1`,
      )
      .get(JSON.stringify(scopes));
    if (row) return `${dump.record} (rowid ${row.key}) of scope ${row.scope} points at ${ref.table} ${row.target} of scope ${row.other} through ${ref.column}`;
  }
  return undefined;
}
