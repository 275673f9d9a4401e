/** The procedural layer's tables in an export file: procedures and their earlier versions. */
import type { TableDump } from "../engine/table-dump.ts";
import { JsonObjectSchema } from "../memory/types.ts";

export const PROCEDURAL_DUMPS: readonly TableDump[] = [
  { record: "procedure", table: "procedural_knowledge", order: "id", scoped: "scope = ?1", json: { pddl_action: JsonObjectSchema } },
  {
    record: "procedure_version",
    table: "procedural_versions",
    order: "procedure_id, version",
    scoped: "procedure_id IN (SELECT id FROM procedural_knowledge WHERE scope = ?1)",
    json: { pddl_action: JsonObjectSchema },
    refs: [{ column: "procedure_id", table: "procedural_knowledge" }],
  },
];
