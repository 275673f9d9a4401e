/**
 * Settling a claim on a mutually exclusive relationship against the links already believed for
 * the same (scope, source, relationship): trust decides, equal trust opens a contradiction node
 * (or recency decides), a later valid_from is a succession. Nothing is deleted: losers are
 * expired and joined to the winner by `resolves_conflict`.
 */
import type { Store } from "../engine/store.ts";
import { GllamError } from "../engine/errors.ts";
import { NODE_TYPES, type SemanticLink } from "../memory/types.ts";
import { decideConflict, hasStatedValidFrom, type ConflictDecision } from "./conflicts.ts";
import { endLinkValidity, insertEngineLink, LINK_COLUMNS, readLink, recordLinkEvent, retireLink, toLink, type LinkRow } from "./links.ts";
import { parseScope } from "../memory/parse.ts";
import { nodeIdFor } from "./ids.ts";
import { readNode, upsertNode } from "./nodes.ts";
import type { SemanticPolicy } from "./policy.ts";

const FOREVER = Number.MAX_SAFE_INTEGER;

export type SettleAction = "inserted" | "superseded" | "succeeded" | "contradiction" | "rejected";

export type Settlement = {
  action: SettleAction;
  reason: string;
  /** The believed link the claim met first, with its weight. */
  conflict?: { linkId: number; targetId: string; trustWeight: number };
  /** Links this claim ended (superseded or succeeded). */
  endedLinkIds: number[];
  contradictionId?: string;
  history: boolean;
};

export type SettleOptions = {
  policy: SemanticPolicy;
  explicitFrom: boolean;
  now: number;
  /** straw_man: an override must bring a rationale that `rationaleAccepts` accepts. */
  rationaleAccepts?: (established: SemanticLink) => boolean;
};

/** Believed links of the claim's exclusive key, other targets, overlapping its valid interval. */
export function overlappingBelieved(store: Store, claim: SemanticLink): SemanticLink[] {
  return store
    .db()
    .query<LinkRow, [string, string, string, number, string, number, number]>(
      `SELECT ${LINK_COLUMNS} FROM semantic_links
       WHERE scope = ? AND source_id = ? AND relationship = ? AND expired_at IS NULL AND id != ? AND target_id != ?
         AND valid_from < ? AND (valid_until IS NULL OR valid_until > ?)
       ORDER BY valid_from, id`,
    )
    .all(claim.scope, claim.sourceId, claim.relationship, claim.id, claim.targetId, claim.validUntil ?? FOREVER, claim.validFrom)
    .map(toLink);
}

const nodeName = (store: Store, id: string, scope: string) => readNode(store, id, scope, true)?.name ?? id;

function linkResolution(store: Store, winner: SemanticLink, loser: SemanticLink, why: string, now: number): void {
  insertEngineLink(
    store,
    {
      scope: winner.scope,
      sourceId: loser.targetId,
      targetId: winner.targetId,
      relationship: "resolves_conflict",
      metadata: {
        subjectId: winner.sourceId,
        relationship: winner.relationship,
        winnerLinkId: winner.id,
        loserLinkId: loser.id,
        winnerWeight: winner.trustWeight,
        loserWeight: loser.trustWeight,
        reason: why,
      },
    },
    now,
  );
}

/** A contradiction node joined to both claims' targets by `contradicts` (open until resolved). */
function openContradiction(store: Store, incumbent: SemanticLink, challenger: SemanticLink, why: string, now: number): string {
  const id = nodeIdFor(incumbent.scope, `contradiction:${incumbent.id}:${challenger.id}`);
  const subject = nodeName(store, incumbent.sourceId, incumbent.scope);
  upsertNode(store, {
    id,
    scope: incumbent.scope,
    name: `${subject} ${incumbent.relationship}: ${nodeName(store, incumbent.targetId, incumbent.scope)} vs ${nodeName(store, challenger.targetId, incumbent.scope)}`,
    type: NODE_TYPES.contradiction,
    metadata: {
      status: "open",
      subjectId: incumbent.sourceId,
      relationship: incumbent.relationship,
      linkIds: [incumbent.id, challenger.id],
      weights: [incumbent.trustWeight, challenger.trustWeight],
      reason: why,
    },
  });
  for (const claim of [incumbent, challenger]) {
    insertEngineLink(store, { scope: claim.scope, sourceId: id, targetId: claim.targetId, relationship: "contradicts", metadata: { claimLinkId: claim.id } }, now);
  }
  return id;
}

/** Applies the rules to a claim already inserted (believed); returns what happened. */
export function settleExclusiveClaim(store: Store, claim: SemanticLink, options: SettleOptions): Settlement {
  const { policy, now } = options;
  const decisions = overlappingBelieved(store, claim).map((existing) =>
    decideConflict({ ...claim, explicitFrom: options.explicitFrom }, existing, policy.allowUserGrilling),
  );
  const first = decisions.find((d) => d.kind !== "precedes") ?? decisions[0];
  const base = {
    endedLinkIds: [] as number[],
    history: false,
    conflict: first && { linkId: first.existing.id, targetId: first.existing.targetId, trustWeight: first.existing.trustWeight },
  };
  const overriding = decisions.filter((d) => d.kind === "claim_wins" || d.kind === "succession");
  const refusedOver = options.rationaleAccepts && overriding.find((d) => !options.rationaleAccepts!(d.existing as SemanticLink));
  if (refusedOver) {
    retireLink(store, claim, { now, endReason: "rejected", byLinkId: refusedOver.existing.id, endValidity: false, detail: "straw man: no matching rationale" });
    return { ...base, action: "rejected", reason: `refused to override link ${refusedOver.existing.id}: straw man without a rationale that addresses it` };
  }
  const loses = decisions.find((d): d is Extract<ConflictDecision, { kind: "claim_loses" }> => d.kind === "claim_loses");
  if (loses) {
    retireLink(store, claim, { now, endReason: "superseded", byLinkId: loses.existing.id, endValidity: true, detail: loses.why });
    linkResolution(store, loses.existing as SemanticLink, readLink(store, claim.id, true)!, loses.why, now);
    return { ...base, action: "rejected", reason: `link ${loses.existing.id} stays: ${loses.why}` };
  }
  const contested = decisions.find((d): d is Extract<ConflictDecision, { kind: "contradiction" }> => d.kind === "contradiction");
  if (contested) {
    retireLink(store, claim, { now, endReason: "contradicted", byLinkId: contested.existing.id, endValidity: false, detail: contested.why });
    const contradictionId = openContradiction(store, contested.existing as SemanticLink, claim, contested.why, now);
    return { ...base, action: "contradiction", reason: `contradicts link ${contested.existing.id}: ${contested.why}`, contradictionId };
  }
  let current = claim;
  const reasons: string[] = [];
  for (const decision of decisions) {
    const existing = decision.existing as SemanticLink;
    if (decision.kind === "claim_wins") {
      retireLink(store, existing, { now, endReason: "superseded", byLinkId: claim.id, endValidity: true, detail: decision.why });
      linkResolution(store, claim, existing, decision.why, now);
      base.endedLinkIds.push(existing.id);
      reasons.push(`supersedes link ${existing.id}: ${decision.why}`);
    } else if (decision.kind === "succession") {
      endLinkValidity(store, existing, claim.validFrom, { now, endReason: "succeeded", byLinkId: claim.id, detail: "temporal succession" });
      base.endedLinkIds.push(existing.id);
      reasons.push(`succeeds link ${existing.id} (it now ends at the new valid_from)`);
    } else if (decision.kind === "precedes") {
      const until = Math.min(current.validUntil ?? FOREVER, existing.validFrom);
      endLinkValidity(store, current, until, { now, endReason: "succeeded", byLinkId: existing.id, detail: "precedes a believed link" });
      current = readLink(store, claim.id, true)!;
      base.history = true;
      reasons.push(`history: held until link ${existing.id} began`);
    }
  }
  if (!base.history && current.validUntil !== null && laterBelievedExists(store, current)) {
    store.db().query("UPDATE semantic_links SET end_reason = 'history' WHERE id = ?").run(claim.id);
    base.history = true;
    reasons.push("history: ended before the believed link that follows it");
  }
  const action: SettleAction = decisions.some((d) => d.kind === "claim_wins") ? "superseded" : decisions.some((d) => d.kind === "succession") ? "succeeded" : "inserted";
  return { ...base, action, reason: reasons.length > 0 ? reasons.join("; ") : "new link" };
}

function laterBelievedExists(store: Store, link: SemanticLink): boolean {
  return (
    store
      .db()
      .query(
        `SELECT 1 FROM semantic_links WHERE scope = ? AND source_id = ? AND relationship = ? AND expired_at IS NULL AND id != ? AND valid_from >= ? LIMIT 1`,
      )
      .get(link.scope, link.sourceId, link.relationship, link.id, link.validUntil) !== null
  );
}

export type ContradictionResolution = {
  contradictionId: string;
  winnerLinkId: number;
  loserLinkIds: number[];
  /** When a newer claim had taken the slot meanwhile: how the winner fared against it. */
  settled?: { action: SettleAction; reason: string };
};

/**
 * Closes an open contradiction of the scope in favour of one of its claims (the user's or the
 * planner's answer): the other is expired, the winner believed again if it was the challenger.
 */
export function resolveContradiction(
  store: Store,
  policy: SemanticPolicy,
  contradictionId: string,
  winnerLinkId: number,
  options: { scope?: string; now?: number } = {},
): ContradictionResolution {
  const scope = parseScope(options.scope);
  const now = options.now ?? Date.now();
  return store.transaction(() => {
    const node = readNode(store, contradictionId, scope, true);
    if (!node || node.type !== NODE_TYPES.contradiction) throw new GllamError("E_NOT_FOUND", `no contradiction ${contradictionId}`);
    const linkIds = (node.metadata.linkIds as number[] | undefined) ?? [];
    if (node.metadata.status !== "open") throw new GllamError("E_BAD_INPUT", `contradiction ${contradictionId} is already ${String(node.metadata.status)}`);
    if (!linkIds.includes(winnerLinkId)) throw new GllamError("E_BAD_INPUT", `link ${winnerLinkId} is not one of the claims of ${contradictionId} (${linkIds.join(", ")})`);
    const winner = readLink(store, winnerLinkId, true)!;
    const why = `contradiction ${contradictionId} resolved`;
    const losers = linkIds.filter((id) => id !== winnerLinkId).flatMap((id) => readLink(store, id, true) ?? []);
    for (const loser of losers) {
      if (loser.expiredAt === null) retireLink(store, loser, { now, endReason: "superseded", byLinkId: winner.id, endValidity: true, detail: why });
      insertEngineLink(store, { scope: node.scope, sourceId: contradictionId, targetId: winner.targetId, relationship: "resolves_conflict", metadata: { winnerLinkId: winner.id, loserLinkId: loser.id, reason: why } }, now);
    }
    let settled: Settlement | undefined;
    if (winner.expiredAt !== null) {
      store.db().query("UPDATE semantic_links SET expired_at = NULL, end_reason = NULL, superseded_by = NULL WHERE id = ?").run(winner.id);
      recordLinkEvent(store, { linkId: winner.id, at: now, kind: "restored", oldExpiredAt: winner.expiredAt, detail: why });
      // Another claim may have taken the slot since the contradiction opened: the usual rules settle it.
      settled = settleExclusiveClaim(store, readLink(store, winner.id, true)!, { policy, explicitFrom: hasStatedValidFrom(winner), now });
    }
    upsertNode(store, { id: contradictionId, scope: node.scope, name: node.name, metadata: { ...node.metadata, status: "resolved", winnerLinkId, resolvedAt: now } });
    return { contradictionId, winnerLinkId, loserLinkIds: losers.map((l) => l.id), ...(settled && settled.action !== "inserted" && { settled: { action: settled.action, reason: settled.reason } }) };
  });
}
