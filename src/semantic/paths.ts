/**
 * Seed: FindMultiHopPath. Bidirectional breadth-first search over the links believed and valid
 * at `asOf`, in either direction, one batched query per frontier level. Links a red herring
 * flagged are not expanded through (retrieval suppression) unless asked.
 */
import type { Store } from "../engine/store.ts";
import { GllamError } from "../engine/errors.ts";
import { LINK_COLUMNS, toLink, type DirectedLink, type LinkRow } from "./links.ts";
import { parseScope } from "../memory/parse.ts";
import { readNodes } from "./nodes.ts";

/** `scope` (default "default"): both ends and every link walked are of it; a node of another scope is missing. */
export type PathOptions = { maxHops?: number; asOf?: number; includeSuppressed?: boolean; scope?: string };

export type MultiHopPath = {
  found: boolean;
  hops: number;
  /** The nodes from a to b, with names. */
  nodes: { id: string; name: string }[];
  /** The links walked from a to b; direction "out" means walked from source to target. */
  links: DirectedLink[];
  /** How many nodes the search reached. */
  explored: number;
};

type Step = { prev: string; linkId: number };

/** Parameters: the frontier as a JSON array, asOf, scope. */
export const NEIGHBOUR_SQL = (suppress: boolean) => {
  // "+scope": a filter, not an index key, so each side looks links up by its end's index.
  const believed = `+scope = ?3 AND expired_at IS NULL AND valid_from <= ?2 AND (valid_until IS NULL OR valid_until > ?2)${
    suppress ? ` AND (metadata = '{}' OR json_extract(metadata, '$.suppressExpansion') IS NOT 1)` : ""
  }`;
  return `SELECT id, source_id AS node, target_id AS next FROM semantic_links WHERE source_id IN (SELECT value FROM json_each(?1)) AND ${believed}
          UNION ALL
          SELECT id, target_id AS node, source_id AS next FROM semantic_links WHERE target_id IN (SELECT value FROM json_each(?1)) AND ${believed}`;
};

export function findMultiHopPath(store: Store, a: string, b: string, options: PathOptions = {}): MultiHopPath {
  const maxHops = options.maxHops ?? 4;
  if (!Number.isInteger(maxHops) || maxHops < 1 || maxHops > 12) throw new GllamError("E_BAD_INPUT", `maxHops must be an integer in 1..12, got ${maxHops}`);
  const asOf = options.asOf ?? Date.now();
  const scope = parseScope(options.scope);
  const ends = readNodes(store, [a, b], scope);
  for (const id of [a, b]) if (!ends.some((n) => n.id === id)) throw new GllamError("E_NOT_FOUND", `no node ${id}`);
  if (a === b) return { found: true, hops: 0, nodes: [{ id: a, name: ends[0]!.name }], links: [], explored: 1 };
  const db = store.dbRO();
  const neighbours = db.query<{ id: number; node: string; next: string }, [string, number, string]>(NEIGHBOUR_SQL(!options.includeSuppressed));
  type Side = { parents: Map<string, Step | null>; frontier: string[] };
  const sides: [Side, Side] = [
    { parents: new Map([[a, null]]), frontier: [a] },
    { parents: new Map([[b, null]]), frontier: [b] },
  ];
  let hops = 0;
  let meeting: string | undefined;
  while (!meeting && hops < maxHops && sides[0].frontier.length > 0 && sides[1].frontier.length > 0) {
    const [side, other] = sides[0].frontier.length <= sides[1].frontier.length ? [sides[0], sides[1]] : [sides[1], sides[0]];
    const next: string[] = [];
    for (const row of neighbours.all(JSON.stringify(side.frontier), asOf, scope)) {
      if (side.parents.has(row.next)) continue;
      side.parents.set(row.next, { prev: row.node, linkId: row.id });
      next.push(row.next);
      if (other.parents.has(row.next)) {
        meeting = row.next;
        break;
      }
    }
    side.frontier = next;
    hops++;
  }
  const explored = sides[0].parents.size + sides[1].parents.size;
  if (!meeting) return { found: false, hops: 0, nodes: [], links: [], explored };
  const walk = (parents: Map<string, Step | null>) => {
    const steps: Step[] = [];
    for (let step = parents.get(meeting!); step; step = parents.get(step.prev)) steps.push(step);
    return steps;
  };
  const fromA = walk(sides[0].parents).reverse();
  const toB = walk(sides[1].parents);
  const nodeIds = [...fromA.map((s) => s.prev), meeting, ...toB.map((s) => s.prev)];
  const linkIds = [...fromA, ...toB].map((s) => s.linkId);
  const rows = new Map(
    db
      .query<LinkRow, [string]>(`SELECT ${LINK_COLUMNS} FROM semantic_links WHERE id IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(linkIds))
      .map((row) => [row.id, toLink(row)]),
  );
  const links = linkIds.map((id, i) => {
    const link = rows.get(id)!;
    return { ...link, direction: link.sourceId === nodeIds[i] ? ("out" as const) : ("in" as const) };
  });
  const names = new Map(readNodes(store, nodeIds, scope).map((n) => [n.id, n.name]));
  return { found: true, hops: links.length, nodes: nodeIds.map((id) => ({ id, name: names.get(id) ?? id })), links, explored };
}
