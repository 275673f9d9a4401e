import type { Store } from "../engine/store.ts";
import { parseJsonColumn, parseScope } from "../memory/parse.ts";
import { isPlannerUsable } from "../semantic/fallacies.ts";
import type { TemporalRelationship, TimelineEvent, TimelineLink } from "./timeline.ts";

/** The fallacy whose engine impact downgrades a causal claim to `happened_before` (post hoc ergo propter hoc). */
export const CAUSAL_DOWNGRADE_FALLACY = "post_hoc";

/** Relationships that order events, with the meaning the timeline gives them (causal verbs as in src/semantic/fallacies.ts). */
const TEMPORAL_MEANING: Record<string, TemporalRelationship> = {
  happened_before: "happened_before",
  happened_after: "happened_after",
  during: "during",
  causes: "causes",
  caused: "causes",
  led_to: "causes",
  leads_to: "causes",
  results_in: "causes",
  triggers: "causes",
  triggered: "causes",
};

type LinkMarks = { fallacies?: unknown; claimedRelationship?: unknown; plannerSkip?: unknown };

/**
 * The downgrade hook. A causal claim flagged post_hoc only says its events happened in that order:
 * addEdge stores it as `happened_before` with `claimedRelationship` (the claim) and `fallacies`
 * ([{ kind, nodeId }]); a fallacy node whose metadata names the link ({ kind: "post_hoc", linkId })
 * flags it too, as does a post_hoc entry on a link still stored as causal.
 */
export function isPostHocFlagged(metadata: LinkMarks, flaggedByNode: boolean): boolean {
  const kinds = Array.isArray(metadata.fallacies) ? metadata.fallacies.map((f) => (typeof f === "object" && f !== null ? (f as { kind?: unknown }).kind : f)) : [];
  const claimedCause = typeof metadata.claimedRelationship === "string" && TEMPORAL_MEANING[metadata.claimedRelationship] === "causes";
  return flaggedByNode || kinds.includes(CAUSAL_DOWNGRADE_FALLACY) || claimedCause;
}

/**
 * Reads the events of a scope for the timeline compiler: nodes of type `event`, and every node an
 * active (not expired) temporal link touches, with those links. Claims a fallacy keeps out of
 * planning (begging_question) are left out. Own small queries on the read-only handle.
 */
export function readTimeline(store: Store, scopeInput?: string): { events: TimelineEvent[]; links: TimelineLink[] } {
  const scope = parseScope(scopeInput);
  const db = store.dbRO();
  const rows = db
    .query<{ id: number; sourceId: string; targetId: string; relationship: string; metadata: string }, [string, string]>(
      `SELECT id, source_id AS sourceId, target_id AS targetId, relationship, metadata FROM semantic_links
       WHERE scope = ? AND expired_at IS NULL AND relationship IN (SELECT value FROM json_each(?)) ORDER BY id`,
    )
    .all(scope, JSON.stringify(Object.keys(TEMPORAL_MEANING)));
  const flaggedByNode = new Set(
    db
      .query<{ linkId: number }, [string, string]>(
        "SELECT json_extract(metadata, '$.linkId') AS linkId FROM semantic_nodes WHERE scope = ? AND type = 'fallacy' AND json_extract(metadata, '$.kind') = ?",
      )
      .all(scope, CAUSAL_DOWNGRADE_FALLACY)
      .map((row) => row.linkId),
  );
  const links = rows.flatMap((row): TimelineLink[] => {
    const metadata = parseJsonColumn<LinkMarks>(row.metadata, {});
    if (!isPlannerUsable({ metadata })) return [];
    const meaning = TEMPORAL_MEANING[row.relationship]!;
    const claimedCause = typeof metadata.claimedRelationship === "string" && TEMPORAL_MEANING[metadata.claimedRelationship] === "causes";
    const downgraded = meaning === "causes" ? isPostHocFlagged(metadata, flaggedByNode.has(row.id)) : meaning === "happened_before" && claimedCause;
    // A downgraded claim keeps its causal wording for the explanation; the timeline orders it as happened_before.
    return [{ id: row.id, sourceId: row.sourceId, targetId: row.targetId, relationship: downgraded ? "causes" : meaning, ...(downgraded ? { downgradedBy: CAUSAL_DOWNGRADE_FALLACY } : {}) }];
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
