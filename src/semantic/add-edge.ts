/**
 * addEdge with the seed's full semantics: checks (nodes, scope, self-loops, strict vocabulary,
 * source, episode), fallacy cues and their impacts, deduplication of identical re-assertions,
 * and, on mutually exclusive relationships, trust-weighted settlement. One transaction: a
 * refused claim writes nothing.
 */
import type { AgenticMemoryConfig } from "../config/prompts.ts";
import type { Store } from "../engine/store.ts";
import { GllamError } from "../engine/errors.ts";
import { LinkInputSchema, type LinkInput, type LinkInputParsed } from "../memory/types.ts";
import { parseInput, parseJsonColumn } from "../memory/parse.ts";
import { detectFallacies, mergeFindings, planFallacyImpact, rationaleMatches, type FallacyFinding, type FallacyImpact, type FallacyKind } from "./fallacies.ts";
import { recordFallacies, type RecordedFallacy } from "./fallacy-nodes.ts";
import { insertLink, readLink } from "./links.ts";
import { readNode } from "./nodes.ts";
import { checkLinkShape, semanticPolicy, type SemanticPolicy } from "./policy.ts";
import { assertNoTaxonomyCycle } from "./taxonomy.ts";
import { settleExclusiveClaim, type SettleAction, type Settlement } from "./resolution.ts";

export type AddEdgeAction = SettleAction | "duplicate";

export type AddEdgeResult = {
  action: AddEdgeAction;
  /** The claim's row (the existing one for a duplicate). */
  linkId: number;
  reason: string;
  /** The relationship stored (a fallacy may have downgraded the claimed one). */
  relationship: string;
  /** This claim's trust weight. */
  trustWeight: number;
  /** The believed link it met on an exclusive relationship, with that link's weight. */
  conflict?: Settlement["conflict"];
  endedLinkIds: number[];
  contradictionId?: string;
  /** The claim describes a closed past interval. */
  history: boolean;
  fallacies: RecordedFallacy[];
  notes: string[];
};

export type AddEdgeOptions = {
  config: AgenticMemoryConfig;
  now?: number;
  /** Findings of a fallacy judge (an LLM), added to the rule-based ones. */
  judgedFallacies?: FallacyFinding[];
  /** Rule cues the judge rejected as false alarms (their impacts do not apply). */
  rejectedFallacies?: FallacyKind[];
};

const policies = new WeakMap<AgenticMemoryConfig, SemanticPolicy>();
function policyOf(config: AgenticMemoryConfig): SemanticPolicy {
  let policy = policies.get(config);
  if (!policy) policies.set(config, (policy = semanticPolicy(config)));
  return policy;
}

export function addEdge(store: Store, input: LinkInput, options: AddEdgeOptions): AddEdgeResult {
  const link = parseInput(LinkInputSchema, input, "link");
  const policy = policyOf(options.config);
  const now = options.now ?? Date.now();
  checkLinkShape(policy, link);
  return store.transaction(() => {
    const names = checkEndpoints(store, link);
    assertNoTaxonomyCycle(store, link, now);
    const trustWeight = claimTrust(store, link, input.trustWeight !== undefined);
    const validFrom = link.validFrom ?? now;
    const { findings, impact } = assessClaim(store, link, names, policy, options.judgedFallacies ?? [], options.rejectedFallacies ?? []);
    const relationship = impact.relationship;
    const same = findSameBelieved(store, link, relationship);
    if (same && link.validUntil === undefined) {
      const { reason } = reassert(store, same, link.originSourceId ?? null, link.episodeId ?? null, now);
      return { action: "duplicate", linkId: same.id, reason, relationship, trustWeight: same.trustWeight, endedLinkIds: [], history: false, fallacies: [], notes: [] };
    }
    const flags = {
      ...(impact.plannerSkip && { plannerSkip: true }),
      ...(impact.suppressExpansion && { suppressExpansion: true }),
      ...(impact.excludeFromRules && { excludeFromRules: true }),
      ...(relationship !== link.relationship && { claimedRelationship: link.relationship }),
      ...(link.claim && { claim: link.claim }),
    };
    const id = insertLink(
      store,
      { ...link, relationship, validFrom, validUntil: link.validUntil ?? null, trustWeight, metadata: { ...link.metadata, ...flags } },
      now,
    );
    const settlement: Settlement = policy.exclusive.has(relationship)
      ? settleExclusiveClaim(store, readLink(store, id, true)!, {
          policy,
          explicitFrom: link.validFrom !== undefined,
          now,
          rationaleAccepts: impact.refuseOverrideWithoutRationale
            ? (established) => rationaleMatches(link.rationale, { ...established, targetName: readNode(store, established.targetId, link.scope, true)?.name ?? "" })
            : undefined,
        })
      : { action: "inserted", reason: "new link", endedLinkIds: [], history: false };
    const fallacies = findings.length > 0 ? recordFallacies(store, readLink(store, id, true)!, findings, impact, settlement, now) : [];
    return { ...settlement, linkId: id, relationship, trustWeight, fallacies, notes: impact.notes };
  });
}

type EndpointNames = { subjectName: string; targetName: string };

/**
 * Both ends, the origin source and the provenance episode must be in the link's scope: one of
 * another scope is reported exactly as a missing one, so a link never crosses scopes.
 */
function checkEndpoints(store: Store, link: LinkInputParsed): EndpointNames {
  const found = store
    .db()
    .query<{ id: string; name: string }, [string, string, string]>("SELECT id, name FROM semantic_nodes WHERE id IN (?, ?) AND scope = ?")
    .all(link.sourceId, link.targetId, link.scope);
  const names = [link.sourceId, link.targetId].map((id) => {
    const node = found.find((n) => n.id === id);
    if (!node) throw new GllamError("E_NOT_FOUND", `link ${link.sourceId} -[${link.relationship}]-> ${link.targetId}: no node ${id}`);
    return node.name;
  });
  if (link.episodeId !== undefined && !store.db().query("SELECT 1 FROM episodes WHERE id = ? AND scope = ?").get(link.episodeId, link.scope)) {
    throw new GllamError("E_NOT_FOUND", `link provenance episode ${link.episodeId} does not exist`);
  }
  return { subjectName: names[0]!, targetName: names[1]! };
}

/** An explicit weight wins; else the origin source's composite weight; else the default. */
function claimTrust(store: Store, link: LinkInputParsed, explicit: boolean): number {
  if (link.originSourceId === undefined) return link.trustWeight;
  const source = store
    .db()
    .query<{ trustWeight: number }, [string, string]>("SELECT trust_weight AS trustWeight FROM sources WHERE id = ? AND scope = ?")
    .get(link.originSourceId, link.scope);
  if (!source) throw new GllamError("E_NOT_FOUND", `link origin source ${link.originSourceId} does not exist`);
  return explicit ? link.trustWeight : source.trustWeight;
}

/** Fallacy cues run only when there is a statement (or proof, or a judge's findings) to read. */
function assessClaim(
  store: Store,
  link: LinkInputParsed,
  names: EndpointNames,
  policy: SemanticPolicy,
  judged: FallacyFinding[],
  rejected: FallacyKind[],
): { findings: FallacyFinding[]; impact: FallacyImpact } {
  if (!link.claim.trim() && !link.proof.trim() && judged.length === 0) return { findings: [], impact: planFallacyImpact([], link.relationship) };
  const db = store.db();
  const openContradiction =
    db
      .query(
        `SELECT 1 FROM semantic_nodes WHERE scope = ? AND type = 'contradiction'
           AND json_extract(metadata, '$.subjectId') = ? AND json_extract(metadata, '$.status') = 'open' LIMIT 1`,
      )
      .get(link.scope, link.sourceId) !== null;
  const meetsActive =
    policy.exclusive.has(link.relationship) &&
    db
      .query("SELECT 1 FROM semantic_links WHERE scope = ? AND source_id = ? AND relationship = ? AND expired_at IS NULL AND target_id != ? LIMIT 1")
      .get(link.scope, link.sourceId, link.relationship, link.targetId) !== null;
  const neighbour =
    db
      .query("SELECT 1 FROM semantic_links WHERE expired_at IS NULL AND ((source_id = ?1 AND target_id = ?2) OR (source_id = ?2 AND target_id = ?1)) LIMIT 1")
      .get(link.sourceId, link.targetId) !== null;
  const findings = mergeFindings(
    detectFallacies({
      text: link.claim,
      relationship: link.relationship,
      ...names,
      proof: link.proof,
      activeContradiction: openContradiction || meetsActive,
      targetIsNeighbour: neighbour,
    }),
    judged,
    rejected,
  );
  return { findings, impact: planFallacyImpact(findings, link.relationship, link.proof) };
}

type Provenance = { originSourceId: string | null; episodeId: number | null; recordedAt?: number };
type SameLink = Provenance & { id: number; metadata: string; trustWeight: number };
const sameProvenance = (a: Provenance, b: Provenance) => a.originSourceId === b.originSourceId && a.episodeId === b.episodeId;

function findSameBelieved(store: Store, link: LinkInputParsed, relationship: string): SameLink | null {
  return store
    .db()
    .query<SameLink, [string, string, string, string, string, string]>(
      `SELECT id, origin_source_id AS originSourceId, episode_id AS episodeId, metadata, trust_weight AS trustWeight FROM semantic_links
       WHERE scope = ? AND source_id = ? AND relationship = ? AND target_id = ?
         AND caveats = ? AND conditions = ? AND expired_at IS NULL AND valid_until IS NULL`,
    )
    .get(link.scope, link.sourceId, relationship, link.targetId, link.caveats, link.conditions);
}

/**
 * An identical believed link asserted again: new provenance (another source or episode) is
 * evidence, counted and kept in metadata.provenance; the same provenance again changes nothing.
 */
function reassert(store: Store, existing: SameLink, originSourceId: string | null, episodeId: number | null, now: number): { reason: string } {
  const metadata = parseJsonColumn<{ provenance?: Provenance[] }>(existing.metadata, {});
  const claim = { originSourceId, episodeId };
  if ([existing, ...(metadata.provenance ?? [])].some((known) => sameProvenance(known, claim))) {
    return { reason: "identical active link already recorded from this provenance" };
  }
  metadata.provenance = [...(metadata.provenance ?? []), { ...claim, recordedAt: now }];
  store.db().query("UPDATE semantic_links SET evidence_count = evidence_count + 1, metadata = ? WHERE id = ?").run(JSON.stringify(metadata), existing.id);
  return { reason: "identical active link; new provenance added as evidence" };
}
