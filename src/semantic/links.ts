import type { Store } from "../engine/store.ts";
import type { SemanticLink } from "../memory/types.ts";
import { parseJsonColumn, parseScope } from "../memory/parse.ts";

export type LinkRow = Omit<SemanticLink, "metadata" | "endReason"> & { metadata: string; endReason: SemanticLink["endReason"] };

export const LINK_COLUMNS = `id, scope, source_id AS sourceId, target_id AS targetId, relationship, caveats, conditions,
  valid_from AS validFrom, valid_until AS validUntil, recorded_at AS recordedAt, expired_at AS expiredAt,
  origin_source_id AS originSourceId, trust_weight AS trustWeight, episode_id AS episodeId,
  superseded_by AS supersededBy, end_reason AS endReason, evidence_count AS evidenceCount, metadata`;

export const toLink = (row: LinkRow): SemanticLink => ({ ...row, metadata: parseJsonColumn<Record<string, unknown>>(row.metadata, {}) });

export type ActiveLinkOptions = {
  /** World time to read at (default now): links valid then and not retired by the engine. */
  asOf?: number;
  /** Only this scope's links (default "default"): a node of another scope has none. */
  scope?: string;
};

export type DirectedLink = SemanticLink & { direction: "out" | "in" };

/**
 * Parameters: node id (twice), asOf (twice), scope. "+scope" keeps the scope a filter, so the
 * lookup goes through the source and target indexes, not through every link of the scope.
 */
export const ACTIVE_LINKS_SQL = `SELECT ${LINK_COLUMNS}, CASE WHEN source_id = ?1 THEN 'out' ELSE 'in' END AS direction
  FROM semantic_links
  WHERE (source_id = ?1 OR target_id = ?2) AND expired_at IS NULL
    AND valid_from <= ?3 AND (valid_until IS NULL OR valid_until > ?4) AND +scope = ?5
  ORDER BY direction DESC, trust_weight DESC, valid_from DESC, id`;

/** Links touching a node of the scope that hold at `asOf` and that the engine still believes, both directions. */
export function activeLinks(store: Store, nodeId: string, options: ActiveLinkOptions = {}): DirectedLink[] {
  const asOf = options.asOf ?? Date.now();
  return store
    .dbRO()
    .query<LinkRow & { direction: "out" | "in" }, [string, string, number, number, string]>(ACTIVE_LINKS_SQL)
    .all(nodeId, nodeId, asOf, asOf, parseScope(options.scope))
    .map((row) => ({ ...toLink(row), direction: row.direction }));
}

/**
 * One link by id; `fromWriter` reads inside the writer's open transaction. With a scope, a link of
 * another scope reads as missing (ids a caller names); without, any (ids read from the engine's rows).
 */
export function readLink(store: Store, id: number, fromWriter = false, scope?: string): SemanticLink | undefined {
  const row = (fromWriter ? store.db() : store.dbRO()).query<LinkRow, [number]>(`SELECT ${LINK_COLUMNS} FROM semantic_links WHERE id = ?`).get(id);
  return row && (scope === undefined || row.scope === scope) ? toLink(row) : undefined;
}

export type NewLinkRow = {
  scope: string;
  sourceId: string;
  targetId: string;
  relationship: string;
  caveats?: string;
  conditions?: string;
  validFrom: number;
  validUntil?: number | null;
  originSourceId?: string | null;
  trustWeight: number;
  episodeId?: number | null;
  metadata?: Record<string, unknown>;
};

/** Inserts a link row as given (checks are the caller's); returns its id. */
export function insertLink(store: Store, link: NewLinkRow, now: number): number {
  return store
    .db()
    .query<{ id: number }, (string | number | null)[]>(
      `INSERT INTO semantic_links (scope, source_id, target_id, relationship, caveats, conditions, valid_from, valid_until,
         recorded_at, origin_source_id, trust_weight, episode_id, metadata)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    )
    .get(
      link.scope,
      link.sourceId,
      link.targetId,
      link.relationship,
      link.caveats ?? "",
      link.conditions ?? "",
      link.validFrom,
      link.validUntil ?? null,
      now,
      link.originSourceId ?? null,
      link.trustWeight,
      link.episodeId ?? null,
      JSON.stringify(link.metadata ?? {}),
    )!.id;
}

/** Relationships the engine itself writes (contradictions, resolutions, fallacies, sources, senses). */
export const ENGINE_RELATIONSHIPS = ["contradicts", "resolves_conflict", "subverts_claim", "flags_fallacy", "attacks_source", "sense_of", "is_a", "subclass_of"] as const;

/** A link the engine derives (never subject to conflict rules); its reason is kept in metadata. */
export function insertEngineLink(
  store: Store,
  link: { scope: string; sourceId: string; targetId: string; relationship: (typeof ENGINE_RELATIONSHIPS)[number]; metadata: Record<string, unknown> },
  now: number,
): number {
  return insertLink(store, { ...link, validFrom: now, trustWeight: 1000, metadata: { engine: true, ...link.metadata } }, now);
}

export type LinkEventKind = "ended" | "expired" | "repointed" | "restored";

/** Records a change to a stored link so past beliefs can be rebuilt (see semantic_link_events). */
export function recordLinkEvent(
  store: Store,
  event: { linkId: number; at: number; kind: LinkEventKind; oldValidUntil?: number | null; newValidUntil?: number | null; oldExpiredAt?: number | null; byLinkId?: number | null; detail?: string },
): void {
  store
    .db()
    .query(
      `INSERT INTO semantic_link_events (link_id, at, kind, old_valid_until, new_valid_until, old_expired_at, by_link_id, detail)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(event.linkId, event.at, event.kind, event.oldValidUntil ?? null, event.newValidUntil ?? null, event.oldExpiredAt ?? null, event.byLinkId ?? null, event.detail ?? "");
}

type EndOptions = { now: number; endReason: NonNullable<SemanticLink["endReason"]>; byLinkId?: number | null; detail?: string };

/** Ends a link in world time (it held until `at`); it stays believed for its interval. */
export function endLinkValidity(store: Store, link: SemanticLink, at: number, options: EndOptions): void {
  store
    .db()
    .query("UPDATE semantic_links SET valid_until = ?, end_reason = ?, superseded_by = coalesce(?, superseded_by) WHERE id = ?")
    .run(at, options.endReason, options.byLinkId ?? null, link.id);
  recordLinkEvent(store, { linkId: link.id, at: options.now, kind: "ended", oldValidUntil: link.validUntil, newValidUntil: at, byLinkId: options.byLinkId, detail: options.detail });
}

/**
 * Retires a link from belief (expired_at = now, never deleted). With `endValidity` its valid_until
 * also becomes now (seed: the losing claim "is automatically expired (valid_until = now)").
 */
export function retireLink(store: Store, link: SemanticLink, options: EndOptions & { endValidity: boolean }): void {
  const until = options.endValidity ? Math.min(link.validUntil ?? Infinity, Math.max(link.validFrom, options.now)) : link.validUntil;
  store
    .db()
    .query("UPDATE semantic_links SET expired_at = ?, valid_until = ?, end_reason = ?, superseded_by = ? WHERE id = ?")
    .run(options.now, until, options.endReason, options.byLinkId ?? null, link.id);
  recordLinkEvent(store, {
    linkId: link.id,
    at: options.now,
    kind: "expired",
    oldValidUntil: link.validUntil,
    newValidUntil: until,
    byLinkId: options.byLinkId,
    detail: options.detail,
  });
}
