/**
 * Caveat salience (seed: "Node Caveat Compaction & Salience Windowing"): caveats are ranked
 * (active first, then trust, then recency); the top maxInline stay inline and the rest are
 * synthesised into the node's caveat_summary. Every link is kept.
 */
import type { Store } from "../engine/store.ts";
import { GllamError } from "../engine/errors.ts";
import type { SemanticLink } from "../memory/types.ts";
import { LINK_COLUMNS, toLink, type LinkRow } from "./links.ts";
import { parseScope } from "../memory/parse.ts";
import { readNodes, requireNode } from "./nodes.ts";

export type CaveatLink = SemanticLink & { otherName: string };

const isActive = (link: SemanticLink, now: number) => link.expiredAt === null && (link.validUntil === null || link.validUntil > now);

/** Active validity first, then source trust, then recency (valid_from, then recorded_at). */
export function rankCaveats<T extends SemanticLink>(links: readonly T[], now: number): T[] {
  return links
    .filter((link) => link.caveats.trim() !== "")
    .toSorted(
      (x, y) =>
        Number(isActive(y, now)) - Number(isActive(x, now)) ||
        y.trustWeight - x.trustWeight ||
        y.validFrom - x.validFrom ||
        y.recordedAt - x.recordedAt ||
        x.id - y.id,
    );
}

const MAX_SUMMARY = 1500;

/** A deterministic synthesis of the caveats not kept inline: counts, relationships, the most trusted distinct texts. */
export function summariseCaveats(rest: readonly CaveatLink[], now: number): string {
  if (rest.length === 0) return "";
  const active = rest.filter((link) => isActive(link, now)).length;
  const byRelationship = new Map<string, number>();
  for (const link of rest) byRelationship.set(link.relationship, (byRelationship.get(link.relationship) ?? 0) + 1);
  const relationships = [...byRelationship].toSorted((x, y) => y[1] - x[1]).map(([rel, n]) => `${rel} ×${n}`);
  const distinct = new Map<string, { link: CaveatLink; count: number }>();
  for (const link of rest) {
    const key = link.caveats.trim().toLowerCase();
    const seen = distinct.get(key);
    if (seen) seen.count++;
    else distinct.set(key, { link, count: 1 });
  }
  let text = `${rest.length} more caveats (${active} active, ${rest.length - active} ended) on ${relationships.join(", ")}.`;
  const items = [...distinct.values()];
  let shown = 0;
  for (const { link, count } of items) {
    const item = ` "${link.caveats.trim()}" (${link.relationship} ${link.otherName}, trust ${link.trustWeight}${count > 1 ? `, ×${count}` : ""});`;
    if (text.length + item.length > MAX_SUMMARY - 40) break;
    text += (shown === 0 ? " Most trusted:" : "") + item;
    shown++;
  }
  if (shown < items.length) text += ` +${items.length - shown} more distinct caveats.`;
  return text;
}

export type CaveatCompaction = {
  nodeId: string;
  summary: string;
  retainedCount: number;
  prunedCount: number;
  inlineLinkIds: number[];
  /** Who wrote the summary: "template", or a summariser (an LLM) by name. */
  summarisedBy: string;
};

/** Writes a hub's caveat summary from the caveats not kept inline (an LLM); the template is the fallback. */
export interface CaveatSummariser {
  readonly name: string;
  summarise(node: { name: string }, rest: readonly CaveatLink[]): Promise<string>;
}

/** A node's caveated links, ranked, with the other end's name. */
function rankedNodeCaveats(store: Store, nodeId: string, scope: string, now: number): CaveatLink[] {
  const links = store
    .db()
    .query<LinkRow, [string, string]>(`SELECT ${LINK_COLUMNS} FROM semantic_links WHERE (source_id = ?1 OR target_id = ?1) AND +scope = ?2 AND caveats != ''`)
    .all(nodeId, scope)
    .map(toLink);
  const names = new Map(readNodes(store, [...new Set(links.map((l) => (l.sourceId === nodeId ? l.targetId : l.sourceId)))], scope).map((n) => [n.id, n.name]));
  return rankCaveats(
    links.map((l) => ({ ...l, otherName: names.get(l.sourceId === nodeId ? l.targetId : l.sourceId) ?? "" })),
    now,
  );
}

/** Seed: CompactNodeCaveats. Writes caveat_summary and the inline window of a node of the scope; links are untouched. */
export function compactNodeCaveats(
  store: Store,
  nodeId: string,
  maxInline = 5,
  options: { scope?: string; now?: number; written?: { summary: string; by: string } } = {},
): CaveatCompaction {
  if (!Number.isInteger(maxInline) || maxInline < 0 || maxInline > 1000) throw new GllamError("E_BAD_INPUT", `maxInline must be an integer in 0..1000, got ${maxInline}`);
  const scope = parseScope(options.scope);
  const now = options.now ?? Date.now();
  return store.transaction(() => {
    const node = requireNode(store, nodeId, scope, true);
    const ranked = rankedNodeCaveats(store, nodeId, scope, now);
    const inline = ranked.slice(0, maxInline);
    const written = ranked.length > maxInline ? options.written : undefined;
    const summary = written?.summary ?? summariseCaveats(ranked.slice(maxInline), now);
    const inlineLinkIds = inline.map((l) => l.id);
    const metadata = { ...node.metadata, caveatCompaction: { inlineLinkIds, compactedCount: ranked.length - inline.length, at: now } };
    store.db().query("UPDATE semantic_nodes SET caveat_summary = ?, metadata = ?, updated_at = ? WHERE id = ?").run(summary, JSON.stringify(metadata), now, nodeId);
    return { nodeId, summary, retainedCount: inline.length, prunedCount: ranked.length - inline.length, inlineLinkIds, summarisedBy: written?.by ?? "template" };
  });
}

/** Seed: BatchCompactHubCaveats. Compacts every node of the scope with more than minCaveats caveated links. */
export function batchCompactHubCaveats(store: Store, minCaveats = 10, maxInline = 5, options: { scope?: string; now?: number } = {}): CaveatCompaction[] {
  const scope = parseScope(options.scope);
  return hubNodeIds(store, scope, minCaveats).map((nodeId) => compactNodeCaveats(store, nodeId, maxInline, { scope, now: options.now }));
}

/**
 * batchCompactHubCaveats with each hub's summary written by `summariser` (an LLM) from the caveats
 * beyond the inline window; a hub whose summariser call fails gets the template, and says so.
 */
export async function batchCompactHubCaveatsWith(
  store: Store,
  summariser: CaveatSummariser,
  minCaveats = 10,
  maxInline = 5,
  options: { scope?: string; now?: number } = {},
): Promise<(CaveatCompaction & { summariserError?: string })[]> {
  const scope = parseScope(options.scope);
  const now = options.now ?? Date.now();
  const done: (CaveatCompaction & { summariserError?: string })[] = [];
  for (const nodeId of hubNodeIds(store, scope, minCaveats)) {
    const node = requireNode(store, nodeId, scope);
    const rest = rankedNodeCaveats(store, nodeId, scope, now).slice(maxInline);
    let written: { summary: string; by: string } | undefined;
    let summariserError: string | undefined;
    try {
      written = rest.length > 0 ? { summary: await summariser.summarise(node, rest), by: summariser.name } : undefined;
    } catch (error) {
      summariserError = `${summariser.name} failed, template used: ${error instanceof Error ? error.message : String(error)}`;
    }
    const compaction = compactNodeCaveats(store, nodeId, maxInline, { scope, now, written });
    done.push(summariserError ? { ...compaction, summariserError } : compaction);
  }
  return done;
}

/** Nodes of the scope with more than minCaveats caveated links, busiest first. */
function hubNodeIds(store: Store, scope: string, minCaveats: number): string[] {
  return store
    .dbRO()
    .query<{ nodeId: string }, [string, string, number]>(
      `SELECT node_id AS nodeId FROM (
         SELECT source_id AS node_id FROM semantic_links WHERE scope = ?1 AND caveats != ''
         UNION ALL SELECT target_id FROM semantic_links WHERE scope = ?2 AND caveats != '')
       GROUP BY node_id HAVING count(*) > ?3 ORDER BY count(*) DESC, node_id`,
    )
    .all(scope, scope, minCaveats)
    .map((hub) => hub.nodeId);
}
