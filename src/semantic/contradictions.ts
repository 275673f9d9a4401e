/**
 * The contradictions of a scope as a queue a person works through: each contradiction node with
 * both claims (subject, relationship, object, validity, trust, who said it), open ones first.
 * Resolving one is resolution.ts's resolveContradiction.
 */
import { selectByIds } from "../engine/sql.ts";
import type { Store } from "../engine/store.ts";
import type { SemanticLink } from "../memory/types.ts";
import { parseJsonColumn, parseScope } from "../memory/parse.ts";
import { readFactSources, type FactSource } from "./facts.ts";
import { LINK_COLUMNS, toLink } from "./links.ts";
import { readNodes } from "./nodes.ts";

export type ContradictionClaim = SemanticLink & { subjectName: string; objectName: string; source: FactSource | null };

export type ContradictionEntry = {
  id: string;
  name: string;
  status: "open" | "resolved";
  relationship: string;
  reason: string;
  createdAt: number;
  resolvedAt: number | null;
  winnerLinkId: number | null;
  claims: ContradictionClaim[];
};

type Metadata = { status?: string; relationship?: string; linkIds?: number[]; reason?: string; resolvedAt?: number; winnerLinkId?: number };

/** Contradictions of the scope (default "default"), open first then newest first; `status` keeps one kind. */
export function listContradictions(store: Store, options: { scope?: string; status?: "open" | "resolved"; limit?: number } = {}): ContradictionEntry[] {
  const scope = parseScope(options.scope);
  const db = store.dbRO();
  const nodes = db
    .query<{ id: string; name: string; metadata: string; createdAt: number }, [string, string | null, number]>(
      `SELECT id, name, metadata, created_at AS createdAt FROM semantic_nodes
       WHERE scope = ?1 AND type = 'contradiction' AND (?2 IS NULL OR coalesce(json_extract(metadata, '$.status'), 'open') = ?2)
       ORDER BY coalesce(json_extract(metadata, '$.status'), 'open') = 'open' DESC, created_at DESC, id LIMIT ?3`,
    )
    .all(scope, options.status ?? null, options.limit ?? 200)
    .map((row) => ({ ...row, metadata: parseJsonColumn<Metadata>(row.metadata, {}) }));
  const links = selectByIds(db, LINK_COLUMNS, "semantic_links", [...new Set(nodes.flatMap((n) => n.metadata.linkIds ?? []))], toLink);
  const names = new Map(readNodes(store, [...new Set(links.flatMap((l) => [l.sourceId, l.targetId]))], scope).map((n) => [n.id, n.name]));
  const sources = readFactSources(store, links, scope);
  const byId = new Map(links.map((link) => [link.id, link]));
  return nodes.map(({ id, name, metadata, createdAt }) => ({
    id,
    name,
    status: metadata.status === "resolved" ? "resolved" : "open",
    relationship: metadata.relationship ?? "",
    reason: metadata.reason ?? "",
    createdAt,
    resolvedAt: metadata.resolvedAt ?? null,
    winnerLinkId: metadata.winnerLinkId ?? null,
    // A claim forgotten since keeps no row: the queue shows the claims that remain.
    claims: (metadata.linkIds ?? []).flatMap((linkId) => {
      const link = byId.get(linkId);
      if (!link) return [];
      const source = (link.originSourceId && sources.get(link.originSourceId)) || null;
      return [{ ...link, subjectName: names.get(link.sourceId) ?? link.sourceId, objectName: names.get(link.targetId) ?? link.targetId, source }];
    }),
  }));
}
