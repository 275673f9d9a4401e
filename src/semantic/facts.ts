/**
 * The facts about a node as recall shows them: its active links with the other end's name, who
 * said each (source and trust), what each one beat, open contradictions, fallacy flags, and
 * whether its caveat is inline or compacted into the node's caveat summary.
 */
import type { Store } from "../engine/store.ts";
import { parseJsonColumn, parseScope } from "../memory/parse.ts";
import { activeLinks, type DirectedLink } from "./links.ts";
import { readNode, readNodes } from "./nodes.ts";

export type FactSource = { id: string; docType: string; handle: string; displayName: string; trustWeight: number };
export type FactContradiction = { id: string; name: string; status: string; linkIds: number[] };
export type FactDetails = {
  source: FactSource | null;
  /** Claims this one beat or followed: retired or ended by it. */
  supersedes: { linkId: number; targetName: string; trustWeight: number; endReason: string | null }[];
  contradictions: FactContradiction[];
  fallacies: string[];
  /** False when the node's caveats were compacted and this caveat lives in the summary. */
  caveatInline: boolean;
};
export type DescribedFact = DirectedLink & { otherId: string; otherName: string } & FactDetails;

/** The origin sources of links (by id), of the scope, with their trust weights. */
export function readFactSources(store: Store, links: { originSourceId: string | null }[], scope: string): Map<string, FactSource> {
  const rows = store
    .dbRO()
    .query<FactSource, [string, string]>(
      `SELECT id, doc_type AS docType, handle, display_name AS displayName, trust_weight AS trustWeight FROM sources
       WHERE id IN (SELECT value FROM json_each(?)) AND +scope = ?`,
    )
    .all(JSON.stringify(links.flatMap((l) => l.originSourceId ?? [])), scope);
  return new Map(rows.map((s) => [s.id, s]));
}

/** The contradiction nodes of the scope (open or resolved) whose claims include any of these links. */
export function contradictionsOfLinks(store: Store, linkIds: number[], scope: string): FactContradiction[] {
  return store
    .dbRO()
    .query<{ id: string; name: string; metadata: string }, [string, string]>(
      `SELECT id, name, metadata FROM semantic_nodes n WHERE scope = ?2 AND type = 'contradiction'
         AND EXISTS (SELECT 1 FROM json_each(n.metadata, '$.linkIds') j WHERE j.value IN (SELECT value FROM json_each(?1)))`,
    )
    .all(JSON.stringify(linkIds), scope)
    .map((row) => {
      const metadata = parseJsonColumn<{ status?: string; linkIds?: number[] }>(row.metadata, {});
      return { id: row.id, name: row.name, status: metadata.status ?? "open", linkIds: metadata.linkIds ?? [] };
    });
}

/** The facts about a node of the scope (default "default"); a node of another scope has none. */
export function describeFacts(store: Store, nodeId: string, options: { asOf?: number; scope?: string } = {}): DescribedFact[] {
  const scope = parseScope(options.scope);
  const links = activeLinks(store, nodeId, { asOf: options.asOf, scope });
  if (links.length === 0) return [];
  const db = store.dbRO();
  const ids = JSON.stringify(links.map((l) => l.id));
  const otherId = (l: DirectedLink) => (l.direction === "out" ? l.targetId : l.sourceId);
  const names = new Map(readNodes(store, [...new Set(links.map(otherId))], scope).map((n) => [n.id, n.name]));
  const sources = readFactSources(store, links, scope);
  const beaten = db
    .query<{ by: number; linkId: number; targetName: string | null; trustWeight: number; endReason: string | null }, [string, string]>(
      `SELECT l.superseded_by AS by, l.id AS linkId, n.name AS targetName, l.trust_weight AS trustWeight, l.end_reason AS endReason
       FROM semantic_links l LEFT JOIN semantic_nodes n ON n.id = l.target_id
       WHERE l.superseded_by IN (SELECT value FROM json_each(?1)) AND +l.scope = ?2 ORDER BY l.id`,
    )
    .all(ids, scope);
  const contradictions = contradictionsOfLinks(store, links.map((l) => l.id), scope);
  const compaction = readNode(store, nodeId, scope)?.metadata.caveatCompaction as { inlineLinkIds?: number[] } | undefined;
  return links.map((link) => ({
    ...link,
    otherId: otherId(link),
    otherName: names.get(otherId(link)) ?? otherId(link),
    source: (link.originSourceId && sources.get(link.originSourceId)) || null,
    supersedes: beaten.filter((b) => b.by === link.id).map(({ by: _, targetName, ...rest }) => ({ ...rest, targetName: targetName ?? "" })),
    contradictions: contradictions.filter((c) => c.linkIds.includes(link.id)),
    fallacies: ((link.metadata.fallacies as { kind: string }[] | undefined) ?? []).map((f) => f.kind),
    caveatInline: !compaction?.inlineLinkIds || compaction.inlineLinkIds.includes(link.id),
  }));
}
