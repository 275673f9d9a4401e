import type { Store } from "../engine/store.ts";
import { GllamError } from "../engine/errors.ts";
import { LinkInputSchema, type LinkInput, type SemanticLink } from "../memory/types.ts";
import { parseInput, parseJsonColumn } from "../memory/parse.ts";

type LinkRow = Omit<SemanticLink, "metadata" | "endReason"> & { metadata: string; endReason: SemanticLink["endReason"] };

const LINK_COLUMNS = `id, scope, source_id AS sourceId, target_id AS targetId, relationship, caveats, conditions,
  valid_from AS validFrom, valid_until AS validUntil, recorded_at AS recordedAt, expired_at AS expiredAt,
  origin_source_id AS originSourceId, trust_weight AS trustWeight, episode_id AS episodeId,
  superseded_by AS supersededBy, end_reason AS endReason, evidence_count AS evidenceCount, metadata`;

const toLink = (row: LinkRow): SemanticLink => ({ ...row, metadata: parseJsonColumn<Record<string, unknown>>(row.metadata, {}) });

/** What addEdge did, and why; the contradiction issue adds superseded / succeeded / contradiction / rejected. */
export type AddEdgeResult = { action: "inserted" | "duplicate"; linkId: number; reason: string };

/**
 * Records a caveat-qualified link. Both nodes (and the origin source, when named) must exist.
 * Re-asserting an identical active link adds no row: new provenance grows its evidence count.
 */
export function addEdge(store: Store, input: LinkInput, now = Date.now()): AddEdgeResult {
  const link = parseInput(LinkInputSchema, input, "link");
  return store.transaction(() => {
    const db = store.db();
    for (const id of [link.sourceId, link.targetId]) {
      const node = db.query<{ scope: string }, [string]>("SELECT scope FROM semantic_nodes WHERE id = ?").get(id);
      if (!node) throw new GllamError("E_NOT_FOUND", `link ${link.sourceId} -[${link.relationship}]-> ${link.targetId}: no node ${id}`);
      if (node.scope !== link.scope) throw new GllamError("E_BAD_INPUT", `node ${id} is in scope "${node.scope}", the link in "${link.scope}"`);
    }
    if (link.originSourceId !== undefined && !db.query("SELECT 1 FROM sources WHERE id = ?").get(link.originSourceId)) {
      throw new GllamError("E_NOT_FOUND", `link origin source ${link.originSourceId} does not exist`);
    }
    if (link.episodeId !== undefined && !db.query("SELECT 1 FROM episodes WHERE id = ?").get(link.episodeId)) {
      throw new GllamError("E_NOT_FOUND", `link provenance episode ${link.episodeId} does not exist`);
    }
    const validFrom = link.validFrom ?? now;
    const same = db
      .query<{ id: number; originSourceId: string | null; episodeId: number | null; metadata: string }, [string, string, string, string, string, string]>(
        `SELECT id, origin_source_id AS originSourceId, episode_id AS episodeId, metadata FROM semantic_links
         WHERE scope = ? AND source_id = ? AND relationship = ? AND target_id = ?
           AND caveats = ? AND conditions = ? AND expired_at IS NULL AND valid_until IS NULL`,
      )
      .get(link.scope, link.sourceId, link.relationship, link.targetId, link.caveats, link.conditions);
    if (same && link.validUntil === undefined) return reassert(store, same, link.originSourceId ?? null, link.episodeId ?? null, now);
    const inserted = db
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
        link.caveats,
        link.conditions,
        validFrom,
        link.validUntil ?? null,
        now,
        link.originSourceId ?? null,
        link.trustWeight,
        link.episodeId ?? null,
        JSON.stringify(link.metadata),
      );
    return { action: "inserted", linkId: inserted!.id, reason: "new link" };
  });
}

type Provenance = { originSourceId: string | null; episodeId: number | null; recordedAt?: number };
const sameProvenance = (a: Provenance, b: Provenance) => a.originSourceId === b.originSourceId && a.episodeId === b.episodeId;

/**
 * An identical active link asserted again: new provenance (another source or episode) is evidence,
 * counted and kept in metadata.provenance; the same provenance again changes nothing.
 */
function reassert(
  store: Store,
  existing: Provenance & { id: number; metadata: string },
  originSourceId: string | null,
  episodeId: number | null,
  now: number,
): AddEdgeResult {
  const metadata = parseJsonColumn<{ provenance?: Provenance[] }>(existing.metadata, {});
  const claim = { originSourceId, episodeId };
  if ([existing, ...(metadata.provenance ?? [])].some((known) => sameProvenance(known, claim))) {
    return { action: "duplicate", linkId: existing.id, reason: "identical active link already recorded from this provenance" };
  }
  metadata.provenance = [...(metadata.provenance ?? []), { ...claim, recordedAt: now }];
  store
    .db()
    .query("UPDATE semantic_links SET evidence_count = evidence_count + 1, metadata = ? WHERE id = ?")
    .run(JSON.stringify(metadata), existing.id);
  return { action: "duplicate", linkId: existing.id, reason: "identical active link; new provenance added as evidence" };
}

export type ActiveLinkOptions = {
  /** World time to read at (default now): links valid then and not retired by the engine. */
  asOf?: number;
};

export type DirectedLink = SemanticLink & { direction: "out" | "in" };

/** Links touching a node that hold at `asOf` and that the engine still believes, both directions. */
export function activeLinks(store: Store, nodeId: string, options: ActiveLinkOptions = {}): DirectedLink[] {
  const asOf = options.asOf ?? Date.now();
  return store
    .dbRO()
    .query<LinkRow & { direction: "out" | "in" }, [string, string, number, number]>(
      `SELECT ${LINK_COLUMNS}, CASE WHEN source_id = ?1 THEN 'out' ELSE 'in' END AS direction
       FROM semantic_links
       WHERE (source_id = ?1 OR target_id = ?2) AND expired_at IS NULL
         AND valid_from <= ?3 AND (valid_until IS NULL OR valid_until > ?4)
       ORDER BY direction DESC, trust_weight DESC, valid_from DESC, id`,
    )
    .all(nodeId, nodeId, asOf, asOf)
    .map((row) => ({ ...toLink(row), direction: row.direction }));
}
