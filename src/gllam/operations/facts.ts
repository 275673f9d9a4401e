/** Operations on semantic memory: record a fact, read a node's facts and a fact's history, forget. */
import * as v from "valibot";
import { ForgetTargetSchema, ScopeSchema, TrustWeightSchema } from "../../memory/types.ts";
import { formatDay, formatLink } from "../../retrieval/format.ts";
import type { ForgetReport, ForgetTarget } from "../../semantic/forget.ts";
import type { LinkVersion } from "../../semantic/history.ts";
import type { Gllam } from "../gllam.ts";
import type { FactStatement, RecordedFact } from "../../semantic/record-fact.ts";
import { defineOperation, NameSchema, TextSchema, WireTimeSchema } from "../operation.ts";

const OptionalText = v.optional(TextSchema);

/** A fact on the wire (add_fact, and each line of `gllam fact import`). */
export const FactInputSchema = v.object({
  subject: NameSchema,
  relationship: v.pipe(v.string(), v.nonEmpty("must not be empty"), v.maxLength(100)),
  object: NameSchema,
  caveats: OptionalText,
  conditions: OptionalText,
  valid_from: v.optional(WireTimeSchema),
  valid_until: v.optional(WireTimeSchema),
  source: v.optional(v.object({ handle: NameSchema, doc_type: NameSchema, role: v.optional(v.string()) })),
  claim: OptionalText,
  rationale: OptionalText,
  proof: OptionalText,
  trust: v.optional(TrustWeightSchema),
  /** Create entities for names that mean none even when close names exist ("Kaddy" beside Caddy). */
  allow_new: v.optional(v.boolean(), false),
  scope: ScopeSchema,
});

/** The facade's statement of a wire fact. */
export const factStatementOf = (input: v.InferOutput<typeof FactInputSchema>): FactStatement => ({
  subject: input.subject,
  relationship: input.relationship,
  object: input.object,
  caveats: input.caveats,
  conditions: input.conditions,
  validFrom: input.valid_from,
  validUntil: input.valid_until,
  source: input.source && { handle: input.source.handle, docType: input.source.doc_type, role: input.source.role },
  claim: input.claim,
  rationale: input.rationale,
  proof: input.proof,
  trustWeight: input.trust,
  allowNew: input.allow_new,
  scope: input.scope,
});

export const addFact = defineOperation({
  name: "add_fact",
  // A fact may be the first thing a memory holds.
  opens: { create: true },
  summary:
    "Record a fact SUBJECT -[relationship]-> OBJECT (names resolved in the scope; new names become entities), with caveats, validity and who said it; trust, contradictions, succession and fallacy checks apply",
  input: FactInputSchema,
  readOnly: false,
  run: (gllam, input) => gllam.addFactJudged(factStatementOf(input)),
  toText: formatRecordedFact,
});

export function formatRecordedFact(result: RecordedFact): string {
  const lines = [result.subject, result.object].filter((end) => end.created).map((end) => `new node ${end.id} (${end.name})`);
  lines.push(`${result.action} link ${result.linkId} (${result.relationship}, trust ${result.trustWeight}): ${result.reason}`);
  if (result.conflict) lines.push(`  met link ${result.conflict.linkId} -> ${result.conflict.targetId} (trust ${result.conflict.trustWeight})`);
  if (result.contradictionId) lines.push(`  contradiction ${result.contradictionId} is open: resolve it with \`gllam fact resolve ${result.contradictionId} LINK\``);
  for (const f of result.fallacies) lines.push(`  fallacy ${f.kind} (${f.detector}): ${f.cue}`);
  for (const note of result.notes) lines.push(`  ${note}`);
  return lines.join("\n");
}

export const facts = defineOperation({
  name: "facts",
  summary: "The facts about an entity: active now, as they held at as_of (world time), or as believed at known_at (system time), with sources, trust and open contradictions",
  input: v.object({ node: NameSchema, as_of: v.optional(WireTimeSchema), known_at: v.optional(WireTimeSchema), scope: ScopeSchema }),
  readOnly: true,
  run: (gllam, input) => gllam.facts(input.node, { asOf: input.as_of, knownAt: input.known_at, scope: input.scope }),
  toText: ({ node, facts, asOf, knownAt }) => {
    const when = knownAt === undefined ? `at ${formatDay(asOf)}` : `as believed at ${formatDay(knownAt)}`;
    const lines = [`${node.name} (${node.type}) ${when}:`, ...(facts.length > 0 ? facts.map((f) => formatLink(f, node.name)) : ["- (no facts)"])];
    if (node.caveatSummary && knownAt === undefined) lines.push("", `Caveat summary: ${node.caveatSummary}`);
    return lines.join("\n");
  },
});

export function formatVersion(version: LinkVersion): string {
  const { link } = version;
  const span = `${formatDay(link.validFrom)} → ${link.validUntil === null ? "now" : formatDay(link.validUntil)}`;
  const who = version.source ? `${version.source.docType}/${version.source.displayName || version.source.handle}` : "unattributed";
  const ended = version.ended ? ` — ${version.ended}` : "";
  return `[link ${link.id}] ${span}  ${version.targetName}  trust ${link.trustWeight}, ${who}, recorded ${formatDay(link.recordedAt)}  (${version.status}${ended})`;
}

export const factHistory = defineOperation({
  name: "fact_history",
  summary: "Every version of SUBJECT -[relationship]->: valid interval, who said it, trust, and why each version ended",
  input: v.object({ subject: NameSchema, relationship: v.pipe(v.string(), v.nonEmpty("must not be empty")), scope: ScopeSchema }),
  readOnly: true,
  run: (gllam, input) => gllam.factHistory(input.subject, input.relationship, { scope: input.scope }),
  toText: ({ node, relationship, versions }) => (versions.length > 0 ? versions.map(formatVersion).join("\n") : `no ${relationship} links from ${node.name} (${node.id})`),
});

export function formatForgetReport(report: ForgetReport): string {
  const r = report.removed;
  const lines = [
    `removed ${r.nodes.length} nodes, ${r.links.length} links, ${r.sources.length} sources, ${r.sessions.length} sessions, ${r.episodes.length} episodes`,
    `        ${r.linkEvents} link events, ${r.nameKeys} name keys, ${r.nodeVectors} node vectors, ${r.episodeVectors} episode vectors, ${r.mentions} mentions, ${r.summaries} summaries`,
  ];
  if (r.nodes.length > 0) lines.push(`nodes: ${r.nodes.join(", ")}`);
  if (r.links.length > 0) lines.push(`links: ${r.links.join(", ")}`);
  if (r.episodes.length > 0) lines.push(`episodes: ${r.episodes.join(", ")}`);
  if (report.restored.length > 0) lines.push(`believed again: links ${report.restored.join(", ")}`);
  if (report.reattributed.length > 0) lines.push(`kept on other evidence: links ${report.reattributed.join(", ")}`);
  if (report.recompacted.length > 0) lines.push(`caveat summaries recomputed: ${report.recompacted.join(", ")}`);
  if (report.reindexed > 0) lines.push(`re-indexed ${report.reindexed} following turns without the forgotten text`);
  if (!report.walPurged) lines.push("the WAL keeps old pages until the next checkpoint (another process reads an older snapshot, or a replicator owns the checkpoints)");
  return lines.join("\n");
}

/** A forget target with its node named as elsewhere (id, name or alias: exact, an ambiguous name is refused) turned into its id. */
export const resolveForgetTarget = (gllam: Gllam, input: ForgetTarget): ForgetTarget =>
  "node" in input ? { ...input, node: gllam.nodeNamed(input.node, { scope: input.scope }).id } : input;

export const forget = defineOperation({
  name: "forget",
  summary:
    "Forget a node, link, source, episode or session and everything derived only from it (one transaction, no copy left in the file); give exactly one of node, link, source, episode, session",
  input: ForgetTargetSchema,
  readOnly: false,
  run: (gllam, input) => gllam.forget(resolveForgetTarget(gllam, input)),
  toText: formatForgetReport,
});
