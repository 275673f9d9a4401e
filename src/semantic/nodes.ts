import type { Store } from "../engine/store.ts";
import { selectByIds } from "../engine/sql.ts";
import { GllamError } from "../engine/errors.ts";
import { deleteVectors } from "../engine/schema.ts";
import { NodeInputSchema, type NodeInput, type SemanticNode } from "../memory/types.ts";
import { parseInput, parseJsonColumn } from "../memory/parse.ts";
import { nameKeys } from "./names.ts";

export type NodeRow = Omit<SemanticNode, "aliases" | "metadata" | "isCategory"> & { aliases: string; metadata: string; isCategory: number };

export const NODE_COLUMNS = `id, scope, name, type, aliases, context_prompt AS contextPrompt, taxonomy_path AS taxonomyPath,
  is_category AS isCategory, caveat_summary AS caveatSummary, valid_from AS validFrom, valid_until AS validUntil,
  metadata, created_at AS createdAt, updated_at AS updatedAt`;

export function toNode(row: NodeRow): SemanticNode {
  return {
    ...row,
    aliases: parseJsonColumn<string[]>(row.aliases, []),
    metadata: parseJsonColumn<Record<string, unknown>>(row.metadata, {}),
    isCategory: row.isCategory === 1,
  };
}

/** Fields whose change makes the node's stored vector stale. */
const EMBEDDED_FIELDS = ["name", "type", "aliases", "contextPrompt"] as const;

export type UpsertNodeResult = { node: SemanticNode; created: boolean; embeddingStale: boolean };

/**
 * Inserts a node, or updates the fields the input names (others keep their value; aliases are
 * merged, never dropped). A change to the embedded text drops the node's vectors so it is re-embedded.
 */
export function upsertNode(store: Store, input: NodeInput): UpsertNodeResult {
  const parsed = parseInput(NodeInputSchema, input, "node");
  const given = new Set(Object.keys(input));
  return store.transaction(() => {
    const db = store.db();
    const now = Date.now();
    const existing = readNode(store, parsed.id, true);
    if (existing && existing.scope !== parsed.scope) {
      throw new GllamError("E_BAD_INPUT", `node ${parsed.id} belongs to scope "${existing.scope}", not "${parsed.scope}"`);
    }
    const merged = existing
      ? {
          ...existing,
          ...Object.fromEntries(Object.entries(parsed).filter(([key]) => given.has(key))),
          aliases: [...new Set([...existing.aliases, ...parsed.aliases])],
        }
      : { ...parsed, validFrom: parsed.validFrom ?? null, validUntil: parsed.validUntil ?? null };
    db.query(
      `INSERT INTO semantic_nodes (id, scope, name, type, aliases, context_prompt, taxonomy_path, is_category, caveat_summary,
         valid_from, valid_until, metadata, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, type = excluded.type, aliases = excluded.aliases,
         context_prompt = excluded.context_prompt, taxonomy_path = excluded.taxonomy_path, is_category = excluded.is_category,
         caveat_summary = excluded.caveat_summary, valid_from = excluded.valid_from, valid_until = excluded.valid_until,
         metadata = excluded.metadata, updated_at = excluded.updated_at`,
    ).run(
      merged.id,
      merged.scope,
      merged.name,
      merged.type,
      JSON.stringify(merged.aliases),
      merged.contextPrompt,
      merged.taxonomyPath,
      merged.isCategory ? 1 : 0,
      merged.caveatSummary,
      merged.validFrom ?? null,
      merged.validUntil ?? null,
      JSON.stringify(merged.metadata),
      existing?.createdAt ?? now,
      now,
    );
    writeNodeNames(store, merged.id, merged.scope, merged.name, merged.aliases);
    const stale = existing !== undefined && EMBEDDED_FIELDS.some((f) => JSON.stringify(existing[f]) !== JSON.stringify(merged[f]));
    // Both tiers are queued again by trigger; the static one is rewritten before this transaction commits.
    if (stale) deleteVectors(db, "nodes", [merged.id]);
    return { node: readNode(store, merged.id, true)!, created: !existing, embeddingStale: stale || !existing };
  });
}

/** Rewrites the node's normalised name keys (entity resolution reads them). */
export function writeNodeNames(store: Store, id: string, scope: string, name: string, aliases: readonly string[]): void {
  const db = store.db();
  db.query("DELETE FROM semantic_node_names WHERE node_id = ?").run(id);
  const insert = db.query("INSERT OR IGNORE INTO semantic_node_names (scope, name_key, node_id) VALUES (?, ?, ?)");
  for (const key of nameKeys(name, aliases)) insert.run(scope, key, id);
}

/** One node by id; `fromWriter` reads inside the writer's open transaction. */
export function readNode(store: Store, id: string, fromWriter = false): SemanticNode | undefined {
  const db = fromWriter ? store.db() : store.dbRO();
  const row = db.query<NodeRow, [string]>(`SELECT ${NODE_COLUMNS} FROM semantic_nodes WHERE id = ?`).get(id);
  return row ? toNode(row) : undefined;
}

export function readNodes(store: Store, ids: string[]): SemanticNode[] {
  return selectByIds(store.dbRO(), NODE_COLUMNS, "semantic_nodes", ids, toNode);
}

/** Nodes a user may mean by a name: exact id, then name or alias, case-insensitively. */
export function findNodesByName(store: Store, name: string, scope = "default"): SemanticNode[] {
  const wanted = name.trim();
  if (!wanted) return [];
  const rows = store
    .dbRO()
    .query<NodeRow, [string, string, string, string]>(
      `SELECT ${NODE_COLUMNS} FROM semantic_nodes n
       WHERE n.scope = ?1 AND (n.id = ?2 OR n.name = ?3 COLLATE NOCASE
         OR EXISTS (SELECT 1 FROM json_each(n.aliases) a WHERE a.value = ?4 COLLATE NOCASE))
       ORDER BY n.id = ?2 DESC, n.name = ?3 COLLATE NOCASE DESC, n.name`,
    )
    .all(scope, wanted, wanted, wanted);
  return rows.map(toNode);
}
