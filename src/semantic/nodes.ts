import type { Store } from "../engine/store.ts";
import { selectByIds } from "../engine/sql.ts";
import { GllamError } from "../engine/errors.ts";
import { deleteVectors } from "../engine/schema.ts";
import { NODE_TYPES, NodeInputSchema, type NodeInput, type SemanticNode } from "../memory/types.ts";
import { parseInput, parseJsonColumn, parseScope } from "../memory/parse.ts";
import { checkNewNodeId, nameSlug, nodeIdFor } from "./ids.ts";
import { editDistance, nameKeys, nearMissTest, normalizeEntityName, trigramDice } from "./names.ts";

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
    const owner = db.query<{ scope: string }, [string]>("SELECT scope FROM semantic_nodes WHERE id = ?").get(parsed.id)?.scope;
    if (owner !== undefined && owner !== parsed.scope) throw new GllamError("E_CONFLICT", `node id "${parsed.id}" is taken: choose another id`);
    if (owner === undefined) checkNewNodeId(parsed.id, parsed.scope);
    const existing = owner === undefined ? undefined : readNode(store, parsed.id, parsed.scope, true);
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
    return { node: readNode(store, merged.id, merged.scope, true)!, created: !existing, embeddingStale: stale || !existing };
  });
}

/** Rewrites the node's normalised name keys (entity resolution reads them). */
export function writeNodeNames(store: Store, id: string, scope: string, name: string, aliases: readonly string[]): void {
  const db = store.db();
  db.query("DELETE FROM semantic_node_names WHERE node_id = ?").run(id);
  const insert = db.query("INSERT OR IGNORE INTO semantic_node_names (scope, name_key, node_id) VALUES (?, ?, ?)");
  for (const key of nameKeys(name, aliases)) insert.run(scope, key, id);
}

/**
 * One node by id within a scope: a node of another scope reads as missing, exactly like an id
 * nobody holds. `fromWriter` reads inside the writer's open transaction.
 */
export function readNode(store: Store, id: string, scope: string, fromWriter = false): SemanticNode | undefined {
  const db = fromWriter ? store.db() : store.dbRO();
  const row = db.query<NodeRow, [string, string]>(`SELECT ${NODE_COLUMNS} FROM semantic_nodes WHERE id = ? AND scope = ?`).get(id, scope);
  return row ? toNode(row) : undefined;
}

/** readNode, or E_NOT_FOUND "no node ID" (the same words whether nobody or another scope holds it). */
export function requireNode(store: Store, id: string, scope: string, fromWriter = false): SemanticNode {
  const node = readNode(store, id, scope, fromWriter);
  if (!node) throw new GllamError("E_NOT_FOUND", `no node ${id}`);
  return node;
}

/**
 * The nodes among these ids, in the order given (missing ones skipped): those of `scope`, or of any
 * scope when it is undefined (only for ids the engine read from its own rows).
 */
export function readNodes(store: Store, ids: string[], scope: string | undefined): SemanticNode[] {
  const nodes = selectByIds(store.dbRO(), NODE_COLUMNS, "semantic_nodes", ids, toNode);
  return scope === undefined ? nodes : nodes.filter((node) => node.scope === scope);
}

/**
 * The id to derive for a new node: nodeIdFor(scope, slug), or with "#2", "#3", ... when another
 * node (of any scope: ids are unique in the file) holds it. Reads inside the writer's transaction.
 */
export function freeNodeId(store: Store, scope: string, slug: string): string {
  const base = nodeIdFor(scope, slug);
  const taken = store.db().query("SELECT 1 FROM semantic_nodes WHERE id = ?");
  for (let n = 1; ; n++) {
    const id = n === 1 ? base : `${base}#${n}`;
    if (taken.get(id) === null) return id;
  }
}

/**
 * The node a name means in the scope (its id, else its normalised name or alias, as resolveEntity
 * reads them, but inside the write transaction), created when there is none: its id derived from
 * the name and scope (the next free one when another node holds it), as `gllam fact add` does.
 */
export function ensureNodeNamed(store: Store, name: string, scopeInput?: string): UpsertNodeResult {
  const scope = parseScope(scopeInput);
  const slug = nameSlug(name);
  if (!slug) throw new GllamError("E_BAD_INPUT", `"${name}" has no letters or digits to name a node`);
  return store.transaction(() => {
    const known = knownNodeNamed(store, name, scope);
    if (known) return { node: known, created: false, embeddingStale: false };
    return upsertNode(store, { id: freeNodeId(store, scope, slug), name: name.trim(), scope });
  });
}

/** The node a name (its id, name or an alias, normalised) means in the scope, read on the writer (sees this transaction's nodes). */
export function knownNodeNamed(store: Store, name: string, scope: string): SemanticNode | undefined {
  return (
    readNode(store, name.trim(), scope, true) ??
    store
      .db()
      .query<{ id: string }, [string, string]>("SELECT node_id AS id FROM semantic_node_names WHERE scope = ? AND name_key = ? ORDER BY node_id LIMIT 1")
      .all(scope, normalizeEntityName(name))
      .flatMap((row) => readNode(store, row.id, scope, true) ?? [])[0]
  );
}

/** Nodes a user may mean by a name: exact id, then name or alias, case-insensitively. */
export function findNodesByName(store: Store, name: string, scopeInput?: string): SemanticNode[] {
  const scope = parseScope(scopeInput);
  const wanted = name.trim();
  if (!wanted) return [];
  const rows = store
    .dbRO()
    .query<NodeRow, [string, string, string, string]>(
      // Candidates come by id or by the name key (semantic_node_names), never from a walk over the
      // scope's nodes: names equal but for case share a key, so the exact test below keeps the meaning.
      `SELECT ${NODE_COLUMNS} FROM semantic_nodes n
       WHERE (n.id = ?2 OR n.id IN (SELECT node_id FROM semantic_node_names WHERE scope = ?1 AND name_key = ?4))
         AND +n.scope = ?1 AND (n.id = ?2 OR n.name = ?3 COLLATE NOCASE
         OR EXISTS (SELECT 1 FROM json_each(n.aliases) a WHERE a.value = ?3 COLLATE NOCASE))
       ORDER BY n.id = ?2 DESC, n.name = ?3 COLLATE NOCASE DESC, n.name`,
    )
    .all(scope, wanted, wanted, normalizeEntityName(wanted));
  return rows.map(toNode);
}

export type NearMiss = { id: string; name: string; type: string; /** The name or alias it was close to, normalised. */ matched: string };

/**
 * Nodes of the scope whose name or an alias looks like `name` mistyped (see isNearMiss), closest
 * first; contradictions and fallacies are the engine's and never suggested. Keys of a nearby length
 * are read, then compared.
 */
export function findNearMissNodes(store: Store, name: string, scopeInput?: string, limit = 5): NearMiss[] {
  const scope = parseScope(scopeInput);
  const key = normalizeEntityName(name);
  if (!key) return [];
  const length = [...key].length;
  const rows = store
    .dbRO()
    .query<{ id: string; key: string }, [string, number, number]>(
      `SELECT k.node_id AS id, k.name_key AS key FROM semantic_node_names k JOIN semantic_nodes n ON n.id = k.node_id
       WHERE k.scope = ?1 AND length(k.name_key) BETWEEN ?2 AND ?3
         AND n.type NOT IN ('${NODE_TYPES.contradiction}', '${NODE_TYPES.fallacy}')`,
    )
    .all(scope, Math.max(1, length - 3), length + 3);
  const near = nearMissTest(key);
  const best = new Map<string, { key: string; score: number }>();
  for (const row of rows) {
    if (!near(row.key)) continue;
    const score = editDistance(key, row.key) - trigramDice(key, row.key);
    if (!best.has(row.id) || score < best.get(row.id)!.score) best.set(row.id, { key: row.key, score });
  }
  const ranked = [...best].toSorted((a, b) => a[1].score - b[1].score || (a[0] < b[0] ? -1 : 1)).slice(0, limit);
  const nodes = new Map(readNodes(store, ranked.map(([id]) => id), scope).map((n) => [n.id, n]));
  return ranked.flatMap(([id, { key: matched }]) => {
    const node = nodes.get(id);
    return node ? [{ id, name: node.name, type: node.type, matched }] : [];
  });
}

/**
 * The nodes whose name or alias is one of the phrases (normalised keys, indexed lookups), in the
 * order of the phrases: how a query's words find the entities it names, capitalised or not.
 */
export function findNodesByPhrases(store: Store, phrases: readonly string[], scopeInput?: string): SemanticNode[] {
  const scope = parseScope(scopeInput);
  const keys = [...new Set(phrases.map(normalizeEntityName).filter(Boolean))];
  if (keys.length === 0) return [];
  const rows = store
    .dbRO()
    .query<{ key: string; id: string }, [string, string]>(
      "SELECT k.value AS key, n.node_id AS id FROM json_each(?2) k JOIN semantic_node_names n ON n.scope = ?1 AND n.name_key = k.value ORDER BY k.key, n.node_id",
    )
    .all(scope, JSON.stringify(keys));
  const ids = [...new Set(rows.map((row) => row.id))];
  const byId = new Map(readNodes(store, ids, scope).map((node) => [node.id, node]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
