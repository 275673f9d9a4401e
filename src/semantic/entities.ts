/**
 * Entity resolution: normalised names and aliases (resolveEntity), merging duplicates while
 * keeping every link and its history (mergeNodes), and splitting a node one source uses in
 * another sense (disambiguateEntityForSource, equivocation's impact).
 */
import type { AgenticMemoryConfig } from "../config/prompts.ts";
import type { Store } from "../engine/store.ts";
import { GllamError } from "../engine/errors.ts";
import { deleteVectors } from "../engine/schema.ts";
import type { SemanticNode } from "../memory/types.ts";
import { hasStatedValidFrom } from "./conflicts.ts";
import { insertEngineLink, readLink } from "./links.ts";
import { parseScope } from "../memory/parse.ts";
import { nameSlug, nodeIdFor, slugOfId } from "./ids.ts";
import { normalizeEntityName } from "./names.ts";
import { readNode, readNodes, requireNode, upsertNode } from "./nodes.ts";
import { semanticPolicy } from "./policy.ts";
import { settleExclusiveClaim, type SettleAction } from "./resolution.ts";

export type EntityResolution = { node: SemanticNode | undefined; matchedBy: "id" | "name" | "none"; candidates: SemanticNode[]; ambiguous: boolean };

/**
 * The node a name means: an exact id first, else every node whose normalised name or alias
 * equals the name's (most linked first). Several candidates are reported as ambiguous.
 */
export function resolveEntity(store: Store, name: string, options: { scope?: string } = {}): EntityResolution {
  const scope = parseScope(options.scope);
  const byId = readNode(store, name.trim(), scope);
  if (byId) return { node: byId, matchedBy: "id", candidates: [byId], ambiguous: false };
  const key = normalizeEntityName(name);
  if (!key) return { node: undefined, matchedBy: "none", candidates: [], ambiguous: false };
  const ids = store
    .dbRO()
    .query<{ id: string }, [string, string]>(
      `SELECT n.node_id AS id FROM semantic_node_names n WHERE n.scope = ? AND n.name_key = ?
       ORDER BY (SELECT count(*) FROM semantic_links l WHERE l.source_id = n.node_id OR l.target_id = n.node_id) DESC, n.node_id`,
    )
    .all(scope, key)
    .map((row) => row.id);
  const candidates = readNodes(store, ids, scope);
  return { node: candidates[0], matchedBy: candidates.length > 0 ? "name" : "none", candidates, ambiguous: candidates.length > 1 };
}

type Repoint = { from: string; to: string; linkIds?: number[]; now: number; detail: string };

/** Moves link ends from one node to another (all its links, or the listed ones), recording each move. */
function repointLinks(store: Store, move: Repoint): number[] {
  const db = store.db();
  const moved = db
    .query<{ id: number }, [string, number, string]>(
      "SELECT id FROM semantic_links WHERE (source_id = ?1 OR target_id = ?1) AND (?2 = 0 OR id IN (SELECT value FROM json_each(?3))) ORDER BY id",
    )
    .all(move.from, move.linkIds ? 1 : 0, JSON.stringify(move.linkIds ?? []))
    .map((row) => row.id);
  const ids = JSON.stringify(moved);
  db.query(
    `INSERT INTO semantic_link_events (link_id, at, kind, detail)
     SELECT id, ?, 'repointed', ? || ': ' || CASE WHEN source_id = ? THEN 'source ' ELSE 'target ' END || ? || ' -> ' || ?
     FROM semantic_links WHERE id IN (SELECT value FROM json_each(?))`,
  ).run(move.now, move.detail, move.from, move.from, move.to, ids);
  db.query("UPDATE semantic_links SET source_id = ?1 WHERE source_id = ?2 AND id IN (SELECT value FROM json_each(?3))").run(move.to, move.from, ids);
  db.query("UPDATE semantic_links SET target_id = ?1 WHERE target_id = ?2 AND id IN (SELECT value FROM json_each(?3))").run(move.to, move.from, ids);
  return moved;
}

export type MergeReport = {
  keptId: string;
  mergedId: string;
  linksRepointed: number;
  mentionsMoved: number;
  aliasesAdded: string[];
  /** Exclusive links that met each other once on one node, and how they were settled. */
  settled: { linkId: number; action: SettleAction; reason: string }[];
};

/**
 * Merges `dropId` into `keepId` (both of the scope) in one transaction: every link of the dropped
 * node is re-pointed (an event records each move), its mentions, aliases and source attribution move
 * over, and exclusive relationships that now meet on one node are settled by the usual rules.
 */
export function mergeNodes(store: Store, config: AgenticMemoryConfig, keepId: string, dropId: string, options: { scope?: string; now?: number } = {}): MergeReport {
  const scope = parseScope(options.scope);
  const now = options.now ?? Date.now();
  if (keepId === dropId) throw new GllamError("E_BAD_INPUT", `cannot merge node ${keepId} into itself`);
  return store.transaction(() => {
    const db = store.db();
    const [keep, drop] = [requireNode(store, keepId, scope, true), requireNode(store, dropId, scope, true)];
    const moved = repointLinks(store, { from: dropId, to: keepId, now, detail: `merged ${dropId} into ${keepId}` });
    const mentions = db.query("INSERT OR IGNORE INTO episode_mentions (episode_id, node_id) SELECT episode_id, ? FROM episode_mentions WHERE node_id = ?").run(keepId, dropId).changes;
    db.query("DELETE FROM episode_mentions WHERE node_id = ?").run(dropId);
    db.query("UPDATE sources SET node_id = ? WHERE node_id = ?").run(keepId, dropId);
    db.query("DELETE FROM semantic_node_names WHERE node_id = ?").run(dropId);
    deleteVectors(db, "nodes", [dropId]);
    const aliasesAdded = [drop.name, ...drop.aliases].filter((a) => a !== keep.name && !keep.aliases.includes(a));
    const mergedIds = [...((keep.metadata.mergedIds as string[] | undefined) ?? []), dropId];
    db.query("DELETE FROM semantic_nodes WHERE id = ?").run(dropId);
    upsertNode(store, {
      id: keepId,
      scope: keep.scope,
      name: keep.name,
      aliases: aliasesAdded,
      contextPrompt: keep.contextPrompt || drop.contextPrompt,
      metadata: { ...keep.metadata, mergedIds },
    });
    const policy = semanticPolicy(config);
    const settled = moved.flatMap((id) => {
      const link = readLink(store, id, true)!;
      if (link.sourceId !== keepId || link.expiredAt !== null || !policy.exclusive.has(link.relationship)) return [];
      const { action, reason } = settleExclusiveClaim(store, link, { policy, explicitFrom: hasStatedValidFrom(link), now });
      return action === "inserted" ? [] : [{ linkId: id, action, reason }];
    });
    return { keptId: keepId, mergedId: dropId, linksRepointed: moved.length, mentionsMoved: mentions, aliasesAdded, settled };
  });
}

export type Disambiguation = { nodeId: string; createdFrom: string; movedLinkIds: number[] };

/**
 * Seed: DisambiguateEntityForSource. A source uses a node's name in another sense (a systemd
 * "service" vs a cloud "service"): a sense node is created, that source's links to the node move
 * to it (or the listed links when the source is unknown), and it is joined by `sense_of`.
 */
export function disambiguateEntityForSource(
  store: Store,
  request: { nodeId: string; scope?: string; sense: string; originSourceId?: string | null; linkIds?: number[]; now?: number },
): Disambiguation {
  const scope = parseScope(request.scope);
  const now = request.now ?? Date.now();
  const sense = request.sense.trim();
  if (!nameSlug(sense)) throw new GllamError("E_BAD_INPUT", "disambiguation needs a sense (a word with letters or digits)");
  return store.transaction(() => {
    const node = requireNode(store, request.nodeId, scope, true);
    const id = nodeIdFor(scope, `${slugOfId(node.id, scope)}~${nameSlug(sense)}`);
    const created = !readNode(store, id, scope, true);
    upsertNode(store, {
      id,
      scope: node.scope,
      name: `${node.name} (${sense})`,
      type: node.type,
      contextPrompt: `${node.name} in the sense "${sense}"${request.originSourceId ? `, as ${request.originSourceId} uses it` : ""}.`,
      metadata: { senseOf: node.id, sense, ...(request.originSourceId && { originSourceId: request.originSourceId }) },
    });
    const bySource = request.originSourceId
      ? store
          .db()
          .query<{ id: number }, [string, string]>("SELECT id FROM semantic_links WHERE origin_source_id = ?1 AND (source_id = ?2 OR target_id = ?2)")
          .all(request.originSourceId, node.id)
          .map((row) => row.id)
      : [];
    const linkIds = [...new Set([...bySource, ...(request.linkIds ?? [])])];
    const movedLinkIds = linkIds.length > 0 ? repointLinks(store, { from: node.id, to: id, linkIds, now, detail: `disambiguated ${node.id} as ${sense}` }) : [];
    if (created) insertEngineLink(store, { scope: node.scope, sourceId: id, targetId: node.id, relationship: "sense_of", metadata: { sense } }, now);
    return { nodeId: id, createdFrom: node.id, movedLinkIds };
  });
}
