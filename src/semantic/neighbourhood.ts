/**
 * A node's neighbourhood for drawing: the nodes within 1-2 hops and every link between them that
 * had begun by `asOf`, believed or not (ended and retired links are kept, marked, so a picture can
 * dash them), with the open contradictions each link takes part in. The engine's own links
 * (contradicts, resolves_conflict, ...) are left out: contradictions show as marks on the claims.
 */
import { GllamError } from "../engine/errors.ts";
import type { Store } from "../engine/store.ts";
import { parseScope } from "../memory/parse.ts";
import { contradictionsOfLinks } from "./facts.ts";
import { LINK_COLUMNS, toLink, type LinkRow } from "./links.ts";
import { readNodes, requireNode } from "./nodes.ts";

export type NeighbourhoodLink = {
  id: number;
  sourceId: string;
  targetId: string;
  relationship: string;
  caveats: string | null;
  validFrom: number;
  validUntil: number | null;
  expiredAt: number | null;
  trustWeight: number;
  /** active: believed and valid at asOf; ended: its validity ended by asOf; retired: the engine stopped believing it. */
  status: "active" | "ended" | "retired";
  /** Open contradictions this link is a claim of. */
  contradictions: string[];
};

export type Neighbourhood = {
  center: string;
  asOf: number;
  hops: number;
  nodes: { id: string; name: string; type: string; hop: number }[];
  links: NeighbourhoodLink[];
  /** True when maxNodes cut the neighbourhood short. */
  truncated: boolean;
};

// Parameters: the frontier as a JSON array, asOf, scope. "+scope" so each side uses its end's index.
const TOUCHING_SQL = (() => {
  const begun = `+scope = ?3 AND valid_from <= ?2 AND (metadata = '{}' OR json_extract(metadata, '$.engine') IS NOT 1)`;
  return `SELECT ${LINK_COLUMNS} FROM semantic_links WHERE source_id IN (SELECT value FROM json_each(?1)) AND ${begun}
          UNION
          SELECT ${LINK_COLUMNS} FROM semantic_links WHERE target_id IN (SELECT value FROM json_each(?1)) AND ${begun}`;
})();

export function readNeighbourhood(store: Store, nodeId: string, options: { hops?: number; asOf?: number; scope?: string; maxNodes?: number } = {}): Neighbourhood {
  const hops = options.hops ?? 1;
  if (!Number.isInteger(hops) || hops < 1 || hops > 2) throw new GllamError("E_BAD_INPUT", `hops must be 1 or 2, got ${hops}`);
  const scope = parseScope(options.scope);
  const asOf = options.asOf ?? Date.now();
  const maxNodes = options.maxNodes ?? 60;
  requireNode(store, nodeId, scope);
  const touching = store.dbRO().query<LinkRow, [string, number, string]>(TOUCHING_SQL);
  const hopOf = new Map<string, number>([[nodeId, 0]]);
  const links = new Map<number, ReturnType<typeof toLink>>();
  let frontier = [nodeId];
  let truncated = false;
  for (let hop = 1; hop <= hops && frontier.length > 0; hop++) {
    const next: string[] = [];
    // Strongest first, so a cut keeps the links people trust most.
    const rows = touching.all(JSON.stringify(frontier), asOf, scope).sort((a, b) => b.trustWeight - a.trustWeight || a.id - b.id);
    for (const row of rows) {
      for (const end of [row.sourceId, row.targetId]) {
        if (hopOf.has(end)) continue;
        if (hopOf.size >= maxNodes) {
          truncated = true;
          continue;
        }
        hopOf.set(end, hop);
        next.push(end);
      }
      if (hopOf.has(row.sourceId) && hopOf.has(row.targetId)) links.set(row.id, toLink(row));
    }
    frontier = next;
  }
  // Links among the outermost nodes close the picture without walking further.
  if (frontier.length > 0) {
    for (const row of touching.all(JSON.stringify(frontier), asOf, scope)) if (hopOf.has(row.sourceId) && hopOf.has(row.targetId)) links.set(row.id, toLink(row));
  }
  const contested = new Map<number, string[]>();
  for (const c of contradictionsOfLinks(store, [...links.keys()], scope)) {
    if (c.status === "open") for (const linkId of c.linkIds) contested.set(linkId, [...(contested.get(linkId) ?? []), c.id]);
  }
  const nodes = readNodes(store, [...hopOf.keys()], scope).map((n) => ({ id: n.id, name: n.name, type: n.type, hop: hopOf.get(n.id)! }));
  return {
    center: nodeId,
    asOf,
    hops,
    nodes,
    links: [...links.values()].map((l) => ({
      id: l.id,
      sourceId: l.sourceId,
      targetId: l.targetId,
      relationship: l.relationship,
      caveats: l.caveats,
      validFrom: l.validFrom,
      validUntil: l.validUntil,
      expiredAt: l.expiredAt,
      trustWeight: l.trustWeight,
      status: l.expiredAt !== null ? "retired" : l.validUntil !== null && l.validUntil <= asOf ? "ended" : "active",
      contradictions: contested.get(l.id) ?? [],
    })),
    truncated,
  };
}
