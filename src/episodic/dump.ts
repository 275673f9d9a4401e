/** The episodic layer's tables in an export file: sessions, episodes, their mentions, summaries and extraction checkpoints. */
import type { TableDump } from "../engine/table-dump.ts";
import { JsonObjectSchema } from "../memory/types.ts";

export const EPISODIC_DUMPS: readonly TableDump[] = [
  { record: "session", table: "sessions", order: "scope, id", scoped: "scope = ?1", json: { metadata: JsonObjectSchema }, refs: [{ column: "source_id", table: "sources" }] },
  { record: "episode", table: "episodes", order: "id", scoped: "scope = ?1", json: { metadata: JsonObjectSchema }, refs: [{ column: "source_id", table: "sources" }] },
  {
    record: "mention",
    table: "episode_mentions",
    order: "episode_id, node_id",
    scoped: "episode_id IN (SELECT id FROM episodes WHERE scope = ?1)",
    refs: [
      { column: "episode_id", table: "episodes" },
      { column: "node_id", table: "semantic_nodes" },
    ],
  },
  { record: "summary", table: "episodic_summaries", order: "id", scoped: "scope = ?1", json: { metadata: JsonObjectSchema } },
  { record: "extraction", table: "extracted_sessions", order: "scope, session_id, extractor", scoped: "scope = ?1" },
];
