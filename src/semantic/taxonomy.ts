/**
 * The taxonomy in SQL: prefix queries on the materialized path (escaped LIKE, served by the NOCASE
 * index on (scope, taxonomy_path)), and cycle checks over is_a / subclass_of links.
 */
import type { Database } from "bun:sqlite";
import type { Store } from "../engine/store.ts";
import { GllamError } from "../engine/errors.ts";
import type { SemanticNode } from "../memory/types.ts";
import { parseScope } from "../memory/parse.ts";
import { NODE_COLUMNS, readNode, toNode, type NodeRow } from "./nodes.ts";
import { findTaxonomyCycles, type TaxonomyCycleReport, type TaxonomyEdge } from "./taxonomy-cycles.ts";
import { escapeLike } from "../engine/sql.ts";
import { normalizeTaxonomyPath, ROOT_PATH, sqlLength } from "./taxonomy-paths.ts";

/** Links that place a node below another in the taxonomy (child -> parent). */
export const TAXONOMY_RELATIONSHIPS = ["is_a", "subclass_of"] as const;
const TAXONOMY_SQL = `relationship IN ('is_a', 'subclass_of')`;
/** Believed now or later: a link that only starts in the future still closes a cycle then. */
const BELIEVED_SQL = "expired_at IS NULL AND (valid_until IS NULL OR valid_until > ?2)";

export const isTaxonomyRelationship = (relationship: string) => (TAXONOMY_RELATIONSHIPS as readonly string[]).includes(relationship);

/**
 * "taxonomy_path is the prefix or below it" for parameters ?pattern and ?length: the LIKE gives the
 * index range (it starts with no wildcard), the boundary test keeps /Eng/DBs2 out of /Eng/DBs.
 */
export const UNDER_PREFIX_SQL = (pattern: string, length: string) =>
  `taxonomy_path LIKE ${pattern} ESCAPE '\\' AND (${length} = 0 OR length(taxonomy_path) = ${length} OR substr(taxonomy_path, ${length} + 1, 1) = '/')`;

/** The two parameters of UNDER_PREFIX_SQL for a normalized prefix. */
export function underPrefixParams(prefix: string): [pattern: string, length: number] {
  return prefix === ROOT_PATH ? ["/%", 0] : [`${escapeLike(prefix)}%`, sqlLength(prefix)];
}

export type TaxonomyPrefixOptions = { scope?: string; limit?: number; categoriesOnly?: boolean };

/** Seed: GetNodesByTaxonomyPrefix. Nodes at the prefix or below it, in path order. */
export function getNodesByTaxonomyPrefix(store: Store, prefix: string, options: TaxonomyPrefixOptions = {}): SemanticNode[] {
  const path = normalizeTaxonomyPath(prefix, "prefix");
  const limit = options.limit ?? 1000;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1_000_000) throw new GllamError("E_BAD_INPUT", `limit must be an integer in 1..1000000, got ${limit}`);
  return store
    .dbRO()
    .query<NodeRow, [string, string, number, number, number]>(PREFIX_QUERY_SQL)
    .all(parseScope(options.scope), ...underPrefixParams(path), options.categoriesOnly ? 1 : 0, limit)
    .map(toNode);
}

/** Parameters: scope, the two of underPrefixParams, categories only (0/1), limit. Path order is the index's order: no sort. */
export const PREFIX_QUERY_SQL = `SELECT ${NODE_COLUMNS} FROM semantic_nodes
  WHERE scope = ?1 AND ${UNDER_PREFIX_SQL("?2", "?3")} AND (?4 = 0 OR is_category = 1)
  ORDER BY taxonomy_path COLLATE NOCASE, rowid LIMIT ?5`;

/** How many nodes sit at the prefix or below it. */
export function countNodesByTaxonomyPrefix(db: Database, prefix: string, scope = "default"): number {
  return (
    db
      .query<{ n: number }, [string, string, number]>(`SELECT count(*) AS n FROM semantic_nodes WHERE scope = ?1 AND ${UNDER_PREFIX_SQL("?2", "?3")}`)
      .get(scope, ...underPrefixParams(normalizeTaxonomyPath(prefix, "prefix")))?.n ?? 0
  );
}

/** Seed: DetectTaxonomyCycles. Kahn's algorithm over the believed is_a / subclass_of links of a scope. */
export function detectTaxonomyCycles(store: Store, options: { scope?: string; now?: number } = {}): TaxonomyCycleReport {
  const edges = store
    .dbRO()
    .query<{ child: string; parent: string }, [string, number]>(
      `SELECT source_id AS child, target_id AS parent FROM semantic_links WHERE scope = ?1 AND ${TAXONOMY_SQL} AND ${BELIEVED_SQL}`,
    )
    .all(parseScope(options.scope), options.now ?? Date.now())
    .map((e): TaxonomyEdge => [e.child, e.parent]);
  return findTaxonomyCycles(edges);
}

export type CycleCheck = { wouldCycle: boolean; /** parent, its parent, ... up to the child, when it would. */ chain: string[] };

/**
 * Seed: WouldCreateTaxonomyCycle. Walks up from `parentId` over the scope's links (breadth first,
 * one query per level); reaching `childId` means child -> parent would close a cycle. `fromWriter`
 * reads inside the writer's open transaction.
 */
export function wouldCreateTaxonomyCycle(
  store: Store,
  childId: string,
  parentId: string,
  options: { now?: number; fromWriter?: boolean; scope?: string } = {},
): CycleCheck {
  if (childId === parentId) return { wouldCycle: true, chain: [parentId] };
  const db = options.fromWriter ? store.db() : store.dbRO();
  const scope = parseScope(options.scope);
  const up = db.query<{ node: string; next: string }, [string, number, string]>(
    `SELECT source_id AS node, target_id AS next FROM semantic_links
     WHERE scope = ?3 AND source_id IN (SELECT value FROM json_each(?1)) AND ${TAXONOMY_SQL} AND ${BELIEVED_SQL}`,
  );
  const now = options.now ?? Date.now();
  const cameFrom = new Map<string, string | null>([[parentId, null]]);
  let frontier = [parentId];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const row of up.all(JSON.stringify(frontier), now, scope)) {
      if (cameFrom.has(row.next)) continue;
      cameFrom.set(row.next, row.node);
      if (row.next === childId) {
        const chain: string[] = [];
        for (let at: string | null = childId; at !== null; at = cameFrom.get(at)!) chain.push(at);
        return { wouldCycle: true, chain: chain.reverse() };
      }
      next.push(row.next);
    }
    frontier = next;
  }
  return { wouldCycle: false, chain: [] };
}

/** Refuses child -[is_a|subclass_of]-> parent when it would close a cycle (addEdge calls this). */
export function assertNoTaxonomyCycle(store: Store, link: { scope: string; sourceId: string; targetId: string; relationship: string }, now: number): void {
  if (!isTaxonomyRelationship(link.relationship)) return;
  const check = wouldCreateTaxonomyCycle(store, link.sourceId, link.targetId, { now, fromWriter: true, scope: link.scope });
  if (!check.wouldCycle) return;
  const name = (id: string) => readNode(store, id, link.scope, true)?.name ?? id;
  const loop = [link.sourceId, ...check.chain].map(name).join(" -> ");
  throw new GllamError(
    "E_TAXONOMY_CYCLE",
    `${name(link.sourceId)} -[${link.relationship}]-> ${name(link.targetId)} would close a taxonomy cycle (${loop}); nothing was written`,
  );
}
