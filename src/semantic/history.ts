/**
 * Bi-temporal reads. activeLinks (links.ts) reads world time as now believed; asKnownAt rebuilds
 * what the engine believed at a past system time (semantic_link_events hold every later change);
 * linkHistory lists every version of a (source, relationship) with who said it and why it ended.
 */
import type { Store } from "../engine/store.ts";
import type { SemanticLink } from "../memory/types.ts";
import { parseScope } from "../memory/parse.ts";
import { LINK_COLUMNS, toLink, type DirectedLink, type LinkRow } from "./links.ts";

export type KnownAtOptions = {
  /** System time: what the engine believed then. */
  knownAt: number;
  /** World time the facts must hold at (default: knownAt). */
  asOf?: number;
  /** Only this scope's links (default "default"). */
  scope?: string;
};

/**
 * Links touching a node as believed at `knownAt` and valid at `asOf`: recorded by then, not yet
 * retired then, with the valid_until they had then (later successions and invalidations undone).
 */
export function asKnownAt(store: Store, nodeId: string, options: KnownAtOptions): DirectedLink[] {
  const { knownAt } = options;
  const asOf = options.asOf ?? knownAt;
  return store
    .dbRO()
    .query<LinkRow & { direction: "out" | "in"; changedLater: number }, [string, number, number, string]>(
      `WITH known AS (
         SELECT l.*, CASE WHEN l.source_id = ?1 THEN 'out' ELSE 'in' END AS direction,
           (SELECT e.id FROM semantic_link_events e WHERE e.link_id = l.id AND e.at > ?2 AND e.kind IN ('ended', 'expired')
             ORDER BY e.at, e.id LIMIT 1) AS later_event
         FROM semantic_links l
         WHERE (l.source_id = ?1 OR l.target_id = ?1) AND +l.scope = ?4 AND l.recorded_at <= ?2
           AND (l.expired_at IS NULL OR l.expired_at > ?2)
           AND NOT EXISTS (SELECT 1 FROM semantic_link_events r WHERE r.link_id = l.id AND r.kind = 'restored' AND r.at > ?2 AND r.old_expired_at <= ?2)
       ), believed AS (
         SELECT known.*, CASE WHEN later_event IS NULL THEN valid_until
           ELSE (SELECT old_valid_until FROM semantic_link_events WHERE id = later_event) END AS valid_until_then
         FROM known
       )
       SELECT ${LINK_COLUMNS.replace("valid_until AS validUntil", "valid_until_then AS validUntil").replace("expired_at AS expiredAt", "NULL AS expiredAt").replace("end_reason AS endReason", "CASE WHEN later_event IS NULL THEN end_reason END AS endReason")},
         direction, later_event IS NOT NULL AS changedLater
       FROM believed
       WHERE valid_from <= ?3 AND (valid_until_then IS NULL OR valid_until_then > ?3)
       ORDER BY direction DESC, trust_weight DESC, valid_from DESC, id`,
    )
    .all(nodeId, knownAt, asOf, parseScope(options.scope))
    .map(({ direction, changedLater: _, ...row }) => ({ ...toLink(row), direction }));
}

export type LinkEvent = { at: number; kind: string; oldValidUntil: number | null; newValidUntil: number | null; byLinkId: number | null; detail: string };

export type LinkVersion = {
  link: SemanticLink;
  targetName: string;
  /** Who said it: the origin source with its weight, when known. */
  source: { id: string; docType: string; handle: string; displayName: string; trustWeight: number } | null;
  status: "active" | "ended" | "retired";
  /** Why it ended, in words. */
  ended: string | null;
  events: LinkEvent[];
};

const describeEnd = (link: SemanticLink): string | null => {
  const by = link.supersededBy === null ? "" : ` by link ${link.supersededBy}`;
  switch (link.endReason) {
    case null:
      return link.validUntil === null ? null : "its stated validity ended";
    case "superseded":
      return `superseded${by} (conflict settled on trust)`;
    case "succeeded":
      return `succeeded${by} (a later state took over)`;
    case "contradicted":
      return `contested${by}: an open contradiction awaits resolution`;
    case "rejected":
      return `rejected${by}: it may not override without a matching rationale`;
    case "invalidated":
      return "invalidated (obsolete, or a dependency changed)";
    case "history":
      return "recorded as history (a closed past interval)";
  }
};

/** Every version of (source, relationship), oldest valid time first, with sources and events. */
export function linkHistory(store: Store, sourceId: string, relationship: string, options: { scope?: string } = {}): LinkVersion[] {
  const db = store.dbRO();
  const rows = db
    .query<LinkRow & { targetName: string | null }, [string, string, string]>(
      `SELECT ${LINK_COLUMNS.split(",").map((c) => `l.${c.trim()}`).join(", ")}, n.name AS targetName
       FROM semantic_links l LEFT JOIN semantic_nodes n ON n.id = l.target_id
       WHERE l.scope = ? AND l.source_id = ? AND l.relationship = ? ORDER BY l.valid_from, l.recorded_at, l.id`,
    )
    .all(parseScope(options.scope), sourceId, relationship.trim().toLowerCase());
  const sourceQuery = db.query<NonNullable<LinkVersion["source"]>, [string]>(
    "SELECT id, doc_type AS docType, handle, display_name AS displayName, trust_weight AS trustWeight FROM sources WHERE id = ?",
  );
  const eventQuery = db.query<LinkEvent, [number]>(
    `SELECT at, kind, old_valid_until AS oldValidUntil, new_valid_until AS newValidUntil, by_link_id AS byLinkId, detail
     FROM semantic_link_events WHERE link_id = ? ORDER BY at, id`,
  );
  return rows.map(({ targetName, ...row }) => {
    const link = toLink(row);
    return {
      link,
      targetName: targetName ?? link.targetId,
      source: link.originSourceId ? sourceQuery.get(link.originSourceId) : null,
      status: link.expiredAt !== null ? "retired" : link.validUntil !== null ? "ended" : "active",
      ended: describeEnd(link),
      events: eventQuery.all(link.id),
    };
  });
}

/** Every relationship a node of the scope states (the engine's own left out), each with all its versions. */
export function nodeHistory(store: Store, nodeId: string, options: { scope?: string } = {}): { relationship: string; versions: LinkVersion[] }[] {
  const scope = parseScope(options.scope);
  return store
    .dbRO()
    .query<{ relationship: string }, [string, string]>(
      `SELECT DISTINCT relationship FROM semantic_links WHERE source_id = ? AND +scope = ?
         AND (metadata = '{}' OR json_extract(metadata, '$.engine') IS NOT 1) ORDER BY relationship`,
    )
    .all(nodeId, scope)
    .map(({ relationship }) => ({ relationship, versions: linkHistory(store, nodeId, relationship, { scope }) }));
}
