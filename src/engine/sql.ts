import type { Database } from "bun:sqlite";

/** A LIKE pattern matching `prefix` literally (for `LIKE ? ESCAPE '\'`): %, _ and \ in it lose their meaning. */
export const escapeLike = (prefix: string): string => prefix.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Rows of `table` whose id is in `ids`, mapped and returned in the order of `ids` (missing ids are
 * skipped). One statement for the whole list: the ids travel as a JSON array.
 */
export function selectByIds<Id extends string | number, Row extends { id: Id }, T>(db: Database, columns: string, table: string, ids: Id[], map: (row: Row) => T): T[] {
  if (ids.length === 0) return [];
  const rows = db.query<Row, [string]>(`SELECT ${columns} FROM ${table} WHERE id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids));
  const byId = new Map(rows.map((row) => [row.id, map(row)]));
  return ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
}
