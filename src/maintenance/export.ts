/**
 * `gllam export`: a scope (or every scope) as JSONL, written as it is read, one row at a time, from
 * one read transaction: a consistent snapshot while other processes write, in bounded memory.
 */
import type { Store } from "../engine/store.ts";
import { readSchemaVersion } from "../engine/schema.ts";
import { dumpColumns, dumpRows } from "../engine/table-dump.ts";
import { DUMPS, EXPORT_FORMAT, EXPORT_VERSION, type ExportHeader } from "./export-format.ts";
import { readTierModels, vectorRecords } from "./vector-dump.ts";

export type ExportOptions = {
  /** One scope; every scope when absent. */
  scope?: string;
  /** Carry the stored vectors (base64), so an import need not recompute them. */
  withVectors?: boolean;
  /** Who wrote the file ("gllam 0.1.0"). */
  generator: string;
};

export type ExportReport = { scope: string | null; records: Record<string, number>; lines: number };

export function exportMemory(store: Store, write: (text: string) => void, options: ExportOptions): ExportReport {
  const db = store.dbRO();
  const scope = options.scope ?? null;
  const records: Record<string, number> = {};
  const emit = (line: { record: string }) => {
    write(`${JSON.stringify(line)}\n`);
    records[line.record] = (records[line.record] ?? 0) + 1;
  };
  db.run("BEGIN");
  try {
    const sequence = db.query<{ seq: number }, []>("SELECT seq FROM sqlite_sequence WHERE name = 'episodes'").get()?.seq ?? 0;
    const header: ExportHeader = {
      record: "header",
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      schema: readSchemaVersion(db),
      generator: options.generator,
      scope,
      models: options.withVectors ? readTierModels(db) : null,
      episode_sequence: sequence,
    };
    emit(header);
    for (const dump of DUMPS) for (const row of dumpRows(db, dump, dumpColumns(db, dump), scope)) emit({ record: dump.record, ...row });
    if (options.withVectors) for (const record of vectorRecords(db, scope)) emit(record);
  } finally {
    db.run("COMMIT");
  }
  delete records.header;
  return { scope, records, lines: Object.values(records).reduce((a, b) => a + b, 1) };
}
