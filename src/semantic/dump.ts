/** The semantic layer's tables in an export file: nodes (contradictions, fallacies and categories among them), sources, links and their events. */
import * as v from "valibot";
import type { TableDump } from "../engine/table-dump.ts";
import { JsonObjectSchema } from "../memory/types.ts";
import { writeNodeNames } from "./nodes.ts";

export const NODE_DUMPS: readonly TableDump[] = [
  {
    record: "node",
    table: "semantic_nodes",
    order: "id",
    scoped: "scope = ?1",
    json: { aliases: v.array(v.string()), metadata: JsonObjectSchema },
    // Name keys are the normalised name and aliases: rebuilt, not carried.
    restore: (store, row) => writeNodeNames(store, String(row.id), String(row.scope), String(row.name), row.aliases as string[]),
  },
  { record: "source", table: "sources", order: "id", scoped: "scope = ?1", json: { metadata: JsonObjectSchema }, refs: [{ column: "node_id", table: "semantic_nodes" }] },
];

export const LINK_DUMPS: readonly TableDump[] = [
  {
    record: "link",
    table: "semantic_links",
    order: "id",
    scoped: "scope = ?1",
    json: { metadata: JsonObjectSchema },
    refs: [
      { column: "source_id", table: "semantic_nodes" },
      { column: "target_id", table: "semantic_nodes" },
      { column: "origin_source_id", table: "sources" },
      { column: "episode_id", table: "episodes" },
      { column: "superseded_by", table: "semantic_links" },
    ],
  },
  {
    record: "link_event",
    table: "semantic_link_events",
    order: "id",
    scoped: "link_id IN (SELECT id FROM semantic_links WHERE scope = ?1)",
    refs: [{ column: "link_id", table: "semantic_links" }],
  },
];
