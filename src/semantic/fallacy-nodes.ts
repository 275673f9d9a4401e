/**
 * Stores fallacy findings: a fallacy node per finding joined to the claim's subject by
 * `flags_fallacy`, the claim's own record of them, and the impacts that touch other rows
 * (ad_hominem's attack link on the source, equivocation's node split).
 */
import type { Store } from "../engine/store.ts";
import { NODE_TYPES, type SemanticLink } from "../memory/types.ts";
import { disambiguateEntityForSource } from "./entities.ts";
import type { FallacyFinding, FallacyImpact } from "./fallacies.ts";
import { insertEngineLink } from "./links.ts";
import { nodeIdFor } from "./ids.ts";
import { normalizeEntityName } from "./names.ts";
import { readNode, upsertNode } from "./nodes.ts";
import type { Settlement } from "./resolution.ts";

export type RecordedFallacy = { kind: FallacyFinding["kind"]; cue: string; detector: string; nodeId: string };

const excerpt = (text: string, max = 80) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export function recordFallacies(
  store: Store,
  claim: SemanticLink,
  findings: readonly FallacyFinding[],
  impact: FallacyImpact,
  settlement: Settlement,
  now: number,
): RecordedFallacy[] {
  const text = String(claim.metadata.claim ?? `${claim.sourceId} ${claim.relationship} ${claim.targetId}`);
  const recorded = findings.map((finding): RecordedFallacy => {
    const nodeId = nodeIdFor(claim.scope, `fallacy:${claim.id}:${finding.kind}`);
    upsertNode(store, {
      id: nodeId,
      scope: claim.scope,
      name: `${finding.kind}: ${excerpt(text)}`,
      type: NODE_TYPES.fallacy,
      metadata: { kind: finding.kind, cue: finding.cue, detector: finding.detector ?? "rules", linkId: claim.id, subjectId: claim.sourceId, impact: impact.notes },
    });
    insertEngineLink(store, { scope: claim.scope, sourceId: nodeId, targetId: claim.sourceId, relationship: "flags_fallacy", metadata: { claimLinkId: claim.id, kind: finding.kind } }, now);
    return { kind: finding.kind, cue: finding.cue, detector: finding.detector ?? "rules", nodeId };
  });
  const metadata = { ...claim.metadata, fallacies: recorded.map(({ kind, nodeId }) => ({ kind, nodeId })) };
  store.db().query("UPDATE semantic_links SET metadata = ? WHERE id = ?").run(JSON.stringify(metadata), claim.id);
  if (impact.flagSourceAttack) flagSourceAttack(store, claim, settlement, recorded.find((f) => f.kind === "ad_hominem")!.nodeId, now);
  if (impact.disambiguate) splitAmbiguousEnd(store, claim, impact.disambiguate, now);
  return recorded;
}

/** ad_hominem: the claimant's source node -attacks_source-> the source of the claim it argues against (else the subject). */
function flagSourceAttack(store: Store, claim: SemanticLink, settlement: Settlement, fallacyNodeId: string, now: number): void {
  const sourceNode = (id: string | null | undefined) =>
    id ? (store.db().query<{ nodeId: string | null }, [string]>("SELECT node_id AS nodeId FROM sources WHERE id = ?").get(id)?.nodeId ?? undefined) : undefined;
  const attacker = sourceNode(claim.originSourceId);
  if (!attacker) return;
  const countered = settlement.conflict
    ? store.db().query<{ origin: string | null }, [number]>("SELECT origin_source_id AS origin FROM semantic_links WHERE id = ?").get(settlement.conflict.linkId)?.origin
    : undefined;
  const attacked = sourceNode(countered) ?? claim.sourceId;
  if (attacked === attacker) return;
  insertEngineLink(store, { scope: claim.scope, sourceId: attacker, targetId: attacked, relationship: "attacks_source", metadata: { claimLinkId: claim.id, fallacyNodeId } }, now);
}

/** equivocation: when the ambiguous term names one end of the claim, that node is split for the claim's source. */
function splitAmbiguousEnd(store: Store, claim: SemanticLink, sense: { term: string; sense: string }, now: number): void {
  const term = normalizeEntityName(sense.term);
  const end = [claim.sourceId, claim.targetId].find((id) => {
    const name = normalizeEntityName(readNode(store, id, claim.scope, true)?.name ?? "");
    return name === term || name.split(" ").includes(term);
  });
  if (end) disambiguateEntityForSource(store, { nodeId: end, scope: claim.scope, sense: sense.sense, originSourceId: claim.originSourceId, linkIds: [claim.id], now });
}
