/**
 * Mutually exclusive relationships, pure: how a new claim relates to a believed link of the same
 * (scope, source, relationship) with another target whose valid interval overlaps it.
 */

export type ClaimTiming = {
  validFrom: number;
  validUntil: number | null;
  /** The claim said when it became true; without that it asserts the present state. */
  explicitFrom: boolean;
  trustWeight: number;
};
export type BelievedLink = { id: number; targetId: string; validFrom: number; validUntil: number | null; trustWeight: number };

export type ConflictDecision =
  /** The believed link held until the claim began: it ends at the claim's valid_from. */
  | { kind: "succession"; existing: BelievedLink }
  /** The claim describes a time before the believed link: it ends where that one begins. */
  | { kind: "precedes"; existing: BelievedLink }
  | { kind: "claim_wins"; existing: BelievedLink; why: string }
  | { kind: "claim_loses"; existing: BelievedLink; why: string }
  | { kind: "contradiction"; existing: BelievedLink; why: string };

/** A stored link whose valid_from equals its recorded_at had none stated: addEdge defaulted it to now. */
export const hasStatedValidFrom = (link: { validFrom: number; recordedAt: number }) => link.validFrom !== link.recordedAt;

export function decideConflict(claim: ClaimTiming, existing: BelievedLink, allowUserGrilling: boolean): ConflictDecision {
  if (claim.explicitFrom && existing.validFrom < claim.validFrom) return { kind: "succession", existing };
  if (existing.validFrom > claim.validFrom) return { kind: "precedes", existing };
  const weights = `trust ${claim.trustWeight} vs ${existing.trustWeight}`;
  if (claim.trustWeight > existing.trustWeight) return { kind: "claim_wins", existing, why: `higher trust (${weights})` };
  if (claim.trustWeight < existing.trustWeight) return { kind: "claim_loses", existing, why: `lower trust (${weights})` };
  if (allowUserGrilling) return { kind: "contradiction", existing, why: `equal trust (${weights}): left to the planner or the user` };
  return { kind: "claim_wins", existing, why: `equal trust (${weights}), resolved by recency (allow_user_grilling is off)` };
}
