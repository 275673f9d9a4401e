/**
 * Operations for looking inside memory (the memory browser served by `gllam serve` uses them, and
 * so can any script): a node's neighbourhood and history, paths, contradictions to resolve, source
 * trust explained, episode density and sessions, and a dry run of forget.
 */
import * as v from "valibot";
import { ForgetTargetSchema, ScopeSchema } from "../../memory/types.ts";
import { formatDay, formatLink } from "../../retrieval/format.ts";
import type { LinkVersion } from "../../semantic/history.ts";
import { defineOperation, IntegerSchema, NameSchema, WireTimeSchema } from "../operation.ts";
import { formatForgetReport, formatVersion, resolveForgetTarget } from "./facts.ts";

const LinkIdSchema = IntegerSchema(1, Number.MAX_SAFE_INTEGER);

/** A list as text, one entry per line (or block), or a sentence saying it is empty. */
const linesOr = <T>(items: readonly T[], none: string, line: (item: T) => string, separator = "\n"): string =>
  items.length === 0 ? none : items.map(line).join(separator);

export const nodeHistory = defineOperation({
  name: "node_history",
  summary: "Every relationship an entity states, each with all its versions: valid interval, who said it, trust, and why each version ended",
  input: v.object({ node: NameSchema, scope: ScopeSchema }),
  readOnly: true,
  run: (gllam, input) => gllam.nodeHistory(input.node, { scope: input.scope }),
  toText: ({ node, relationships }) =>
    linesOr(
      relationships,
      `${node.name} states no relationships`,
      ({ relationship, versions }) => [`${node.name} ${relationship}:`, ...versions.map((ver: LinkVersion) => `  ${formatVersion(ver)}`)].join("\n"),
      "\n\n",
    ),
});

export const neighbourhood = defineOperation({
  name: "neighbourhood",
  summary: "An entity's neighbourhood within 1 or 2 hops at as_of: nodes and the links between them (believed, ended or retired), open contradictions marked",
  input: v.object({
    node: NameSchema,
    hops: v.optional(IntegerSchema(1, 2), 1),
    as_of: v.optional(WireTimeSchema),
    max_nodes: v.optional(IntegerSchema(2, 500), 60),
    scope: ScopeSchema,
  }),
  readOnly: true,
  run: (gllam, input) => gllam.neighbourhood(input.node, { hops: input.hops, asOf: input.as_of, scope: input.scope, maxNodes: input.max_nodes }),
  toText: ({ nodes, links, asOf, truncated }) => {
    const names = new Map(nodes.map((n) => [n.id, n.name]));
    const lines = [`${nodes.length} nodes, ${links.length} links at ${formatDay(asOf)}${truncated ? " (cut short)" : ""}:`];
    for (const l of links) {
      const marks = [l.status === "active" ? "" : l.status, l.contradictions.length > 0 ? `contested (${l.contradictions.join(", ")})` : ""].filter(Boolean);
      lines.push(`- ${names.get(l.sourceId)} **${l.relationship}** ${names.get(l.targetId)} [link ${l.id}]${marks.length > 0 ? ` (${marks.join(", ")})` : ""}`);
    }
    return lines.join("\n");
  },
});

export const path = defineOperation({
  name: "path",
  summary: "The shortest chain of links believed at as_of between two entities, in either direction, with caveats",
  input: v.object({ from: NameSchema, to: NameSchema, max_hops: v.optional(IntegerSchema(1, 12), 4), as_of: v.optional(WireTimeSchema), scope: ScopeSchema }),
  readOnly: true,
  run: (gllam, input) => {
    const [a, b] = [gllam.nodeNamed(input.from, { scope: input.scope }), gllam.nodeNamed(input.to, { scope: input.scope })];
    return { maxHops: input.max_hops, ...gllam.findMultiHopPath(a.id, b.id, { maxHops: input.max_hops, asOf: input.as_of, scope: input.scope }) };
  },
  toText: (path) => {
    if (!path.found) return `no path of at most ${path.maxHops} hops (${path.explored} nodes explored)`;
    const chain = path.links.map((link, i) => formatLink({ ...link, otherId: path.nodes[i + 1]!.id, otherName: path.nodes[i + 1]!.name }, path.nodes[i]!.name));
    return [`${path.nodes.map((n) => n.name).join(" → ")} (${path.hops} hops)`, ...chain].join("\n");
  },
});

export const contradictions = defineOperation({
  name: "contradictions",
  summary: "The contradictions of a scope as a queue, open first: both claims with their validity, sources and trust",
  input: v.object({ status: v.optional(v.picklist(["open", "resolved"], "must be open or resolved")), limit: v.optional(IntegerSchema(1, 1000), 200), scope: ScopeSchema }),
  readOnly: true,
  run: (gllam, input) => gllam.listContradictions({ scope: input.scope, status: input.status, limit: input.limit }),
  toText: (entries) =>
    linesOr(entries, "no contradictions", (c) => {
      const claims = c.claims.map((claim) => {
        const who = claim.source ? `${claim.source.docType}/${claim.source.displayName || claim.source.handle}` : "unattributed";
        const won = c.winnerLinkId === claim.id ? " (believed)" : "";
        return `  [link ${claim.id}] ${claim.subjectName} ${claim.relationship} ${claim.objectName} since ${formatDay(claim.validFrom)}, trust ${claim.trustWeight}, ${who}${won}`;
      });
      return [`${c.id} (${c.status}): ${c.name}${c.reason ? ` — ${c.reason}` : ""}`, ...claims].join("\n");
    }),
});

export const resolveContradiction = defineOperation({
  name: "resolve_contradiction",
  summary: "Close an open contradiction in favour of one of its claims (winner_link): the other claim is retired",
  input: v.object({ contradiction: NameSchema, winner_link: LinkIdSchema, scope: ScopeSchema }),
  readOnly: false,
  run: (gllam, input) => gllam.resolveContradiction(input.contradiction, input.winner_link, { scope: input.scope }),
  toText: (r) =>
    `resolved ${r.contradictionId}: link ${r.winnerLinkId} believed, ${r.loserLinkIds.map((id) => `link ${id}`).join(", ")} retired${r.settled ? ` (then ${r.settled.action}: ${r.settled.reason})` : ""}`,
});

export const sourceTrust = defineOperation({
  name: "source_trust",
  summary: "A source (id, or handle when unique in the scope) with its composite trust weight, each part and what it was based on, and how many claims it made",
  input: v.object({ source: NameSchema, scope: ScopeSchema }),
  readOnly: true,
  run: (gllam, input) => gllam.sourceTrust(input.source, { scope: input.scope }),
  toText: ({ source, parts, raw, total, bounds, claims }) => {
    const sign = (n: number) => (n >= 0 ? `+${n}` : String(n));
    return [
      `${source.displayName || source.handle} (${source.docType}${source.role ? `, ${source.role}` : ""}) [${source.id}]`,
      `W_doc_type     ${String(parts.docType.weight).padStart(5)}  ${parts.docType.key} (${parts.docType.basis})`,
      `W_source       ${sign(parts.source.weight).padStart(5)}  ${parts.source.basis === "none" ? "no heuristic" : `${parts.source.basis} ${parts.source.key}`}`,
      `dW_coherence   ${sign(parts.coherence).padStart(5)}`,
      `dW_freshness   ${sign(parts.freshness).padStart(5)}`,
      `W_composite    ${String(total).padStart(5)}  clamp(${raw}, ${bounds[0]}, ${bounds[1]})`,
      `claims: ${claims.active} believed, ${claims.retired} retired`,
    ].join("\n");
  },
});

export const episodeDensity = defineOperation({
  name: "episode_density",
  summary: "Episodes of a scope per UTC day in [start, end): a timeline's density strip",
  input: v.object({ start: v.optional(WireTimeSchema), end: v.optional(WireTimeSchema), scope: ScopeSchema }),
  readOnly: true,
  run: (gllam, input) => gllam.episodeDensity({ scope: input.scope, start: input.start, end: input.end }),
  toText: ({ days, total, undated }) =>
    [...days.map((d) => `${formatDay(d.day)}  ${d.episodes}`), `${total} dated episodes on ${days.length} days${undated > 0 ? `, ${undated} undated` : ""}`].join("\n"),
});

export const sessions = defineOperation({
  name: "sessions",
  summary: "Sessions of a scope, oldest first, with their sizes (episodes) and dates",
  input: v.object({ scope: ScopeSchema }),
  readOnly: true,
  run: (gllam, input) => gllam.listSessions({ scope: input.scope }),
  toText: (list) =>
    linesOr(list, "no sessions", (s) => `${s.id}${s.title ? ` "${s.title}"` : ""}: ${s.episodes} episodes${s.firstAt === null ? "" : `, ${formatDay(s.firstAt)} → ${formatDay(s.lastAt ?? s.firstAt)}`}`),
});

export const sessionEpisodes = defineOperation({
  name: "session_episodes",
  summary: "The latest episodes of one session (up to limit), newest first, with speaker, role and date",
  input: v.object({ session: NameSchema, limit: v.optional(IntegerSchema(1, 10_000), 500), scope: ScopeSchema }),
  readOnly: true,
  run: (gllam, input) => gllam.getRecentEpisodes(input.limit, { scope: input.scope, sessionId: input.session }),
  toText: (episodes) =>
    linesOr(episodes, "no episodes", (e) => `[episode ${e.id}] ${e.occurredAt === null ? "undated" : formatDay(e.occurredAt)} ${e.speaker || e.role || "?"}: ${e.content}`),
});

export const forgetDryRun = defineOperation({
  name: "forget_dry_run",
  summary: "What forget would remove (same input as forget), from a transaction rolled back: nothing changes",
  input: ForgetTargetSchema,
  // Runs on the writer (forget's statements, then a rollback): the file must be open for writing.
  readOnly: false,
  run: (gllam, input) => gllam.forgetDryRun(resolveForgetTarget(gllam, input)),
  // No checkpoint follows a dry run: the report's WAL note does not apply.
  toText: (report) => `dry run, nothing removed; forget would remove:\n${formatForgetReport({ ...report, walPurged: true })}`,
});

const score = (value: number | null) => (value === null ? "n/a" : value.toFixed(2));

export const lastSleepCycle = defineOperation({
  name: "last_sleep_cycle",
  summary: "The report the last sleep cycle of a scope stored (clarity, consistency, what it compacted, merged and filed), or null when none ran",
  input: v.object({ scope: ScopeSchema }),
  readOnly: true,
  run: (gllam, input) => gllam.lastSleepCycle({ scope: input.scope }),
  toText: (last) =>
    last === null
      ? "no sleep cycle has run in this scope (gllam sleep)"
      : [
          `last sleep cycle ${formatDay(last.finishedAt)} (${last.status}, ${last.report.seconds.toFixed(2)} s)`,
          `  memory clarity ${score(last.report.memoryClarityScore)}, consistency ${score(last.report.memoryConsistencyScore)} over ${last.report.traceCount} trace tests`,
          `  ${last.report.compactedHubs} hubs compacted, ${last.report.movedNodes} nodes moved, ${last.report.categorizedCount} categorized, ${last.report.uncategorizedRemaining} uncategorized`,
        ].join("\n"),
});
