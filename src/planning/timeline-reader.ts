import type { Store } from "../engine/store.ts";
import { parseJsonColumn } from "../memory/parse.ts";
import { TEMPORAL_RELATIONSHIPS, type TemporalRelationship, type TimelineEvent, type TimelineLink } from "./timeline.ts";

/** The fallacy whose engine impact downgrades `causes` to `happened_before` (seed: post hoc ergo propter hoc). */
export const CAUSAL_DOWNGRADE_FALLACY = "post_hoc";

type FallacyMarks = { fallacy?: unknown; fallacies?: unknown; kind?: unknown; linkId?: unknown; downgradedTo?: unknown };

const names = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/**
 * The downgrade hook: a `causes` link counts as a mere observed order when it is flagged post_hoc,
 * either in its own metadata (`fallacy`, `fallacies`, or `downgradedTo: "happened_before"`) or by a
 * fallacy node whose metadata names the link (`{ kind: "post_hoc", linkId }`).
 */
export function isPostHocFlagged(linkMetadata: FallacyMarks, flaggedByNode: boolean): boolean {
  return (
    flaggedByNode ||
    linkMetadata.downgradedTo === "happened_before" ||
    [...names(linkMetadata.fallacy), ...names(linkMetadata.fallacies)].some((f) => f === CAUSAL_DOWNGRADE_FALLACY || (typeof f === "object" && f !== null && (f as FallacyMarks).kind === CAUSAL_DOWNGRADE_FALLACY))
  );
}

/**
 * Reads the events of a scope for the timeline compiler: nodes of type `event`, and every node an
 * active (not expired) temporal link touches, with those links. Own small queries, read-only handle.
 */
export function readTimeline(store: Store, scope = "default"): { events: TimelineEvent[]; links: TimelineLink[] } {
  const db = store.dbRO();
  const rows = db
    .query<{ id: number; sourceId: string; targetId: string; relationship: TemporalRelationship; metadata: string }, [string, string]>(
      `SELECT id, source_id AS sourceId, target_id AS targetId, relationship, metadata FROM semantic_links
       WHERE scope = ? AND expired_at IS NULL AND relationship IN (SELECT value FROM json_each(?)) ORDER BY id`,
    )
    .all(scope, JSON.stringify(TEMPORAL_RELATIONSHIPS));
  const flagged = new Set(
    db
      .query<{ metadata: string }, [string]>("SELECT metadata FROM semantic_nodes WHERE scope = ? AND type = 'fallacy'")
      .all(scope)
      .map((row) => parseJsonColumn<FallacyMarks>(row.metadata, {}))
      .filter((m) => m.kind === CAUSAL_DOWNGRADE_FALLACY && typeof m.linkId === "number")
      .map((m) => m.linkId as number),
  );
  const links: TimelineLink[] = rows.map((row) => {
    const downgraded = row.relationship === "causes" && isPostHocFlagged(parseJsonColumn<FallacyMarks>(row.metadata, {}), flagged.has(row.id));
    return { id: row.id, sourceId: row.sourceId, targetId: row.targetId, relationship: row.relationship, ...(downgraded ? { downgradedBy: CAUSAL_DOWNGRADE_FALLACY } : {}) };
  });
  const linked = [...new Set(links.flatMap((l) => [l.sourceId, l.targetId]))];
  const events = db
    .query<TimelineEvent, [string, string]>(
      `SELECT id, name, valid_from AS validFrom, valid_until AS validUntil FROM semantic_nodes
       WHERE scope = ? AND (type = 'event' OR id IN (SELECT value FROM json_each(?))) ORDER BY COALESCE(valid_from, 0), id`,
    )
    .all(scope, JSON.stringify(linked));
  return { events, links };
}
