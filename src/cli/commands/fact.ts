import { defineCommand } from "citty";
import type { Gllam } from "../../gllam/gllam.ts";
import { GllamError } from "../../engine/errors.ts";
import { parseInput } from "../../memory/parse.ts";
import { TimestampSchema } from "../../memory/types.ts";
import { formatDay, formatLink } from "../../retrieval/format.ts";
import type { AddEdgeResult } from "../../semantic/add-edge.ts";
import type { LinkVersion } from "../../semantic/history.ts";
import { globalArgs, scopeArg, scopeOf, withEngine } from "../context.ts";
import { consentToNewNodes, lookUpName, nodeNamed, terminalAsk, type NameLookup } from "../node-names.ts";

export const optionalTime = (value: string | undefined, flag: string) => (value === undefined ? undefined : parseInput(TimestampSchema, value, flag));

const scopeArgs = { scope: scopeArg } as const;
export const jsonArg = { json: { type: "boolean", description: "Print the result as JSON" } } as const;

type FactEnd = { id: string; name: string; created: boolean };

/** The node a name of the fact means, created now (in the write transaction) when it means none. */
function factEnd(gllam: Gllam, lookup: NameLookup, scope: string): FactEnd {
  const { node, created } = gllam.ensureNodeNamed(lookup.name, { scope });
  return { id: node.id, name: node.name, created };
}

function formatAddEdge(result: AddEdgeResult, ends: FactEnd[]): string {
  const lines = ends.filter((end) => end.created).map((end) => `new node ${end.id} (${end.name})`);
  lines.push(`${result.action} link ${result.linkId} (${result.relationship}, trust ${result.trustWeight}): ${result.reason}`);
  if (result.conflict) lines.push(`  met link ${result.conflict.linkId} -> ${result.conflict.targetId} (trust ${result.conflict.trustWeight})`);
  if (result.contradictionId) lines.push(`  contradiction ${result.contradictionId} is open: \`gllam fact resolve ${result.contradictionId} LINK\``);
  for (const f of result.fallacies) lines.push(`  fallacy ${f.kind} (${f.detector}): ${f.cue}`);
  for (const note of result.notes) lines.push(`  ${note}`);
  return lines.join("\n");
}

const addCommand = defineCommand({
  meta: {
    name: "add",
    description: "Record a fact SRC REL DST (a name that matches no node becomes one; one close to existing names needs --new, or a yes on a terminal)",
  },
  args: {
    src: { type: "positional", description: "Subject node (name, id or alias)", required: true },
    rel: { type: "positional", description: "Relationship (snake_case)", required: true },
    dst: { type: "positional", description: "Object node (name, id or alias)", required: true },
    caveat: { type: "string", description: "Condition, constraint or exception that qualifies the fact", valueHint: "text" },
    condition: { type: "string", description: "When the fact applies", valueHint: "text" },
    "valid-from": { type: "string", description: "When it became true (ISO-8601; default now)", valueHint: "date" },
    "valid-until": { type: "string", description: "When it stopped being true", valueHint: "date" },
    source: { type: "string", description: "Who said it (a handle; needs --doc-type)", valueHint: "handle" },
    "doc-type": { type: "string", description: "Where it was said (jira_resolved, slack, draft, ...)", valueHint: "type" },
    role: { type: "string", description: "The source's role when the handle has no heuristic (tech_lead, ...)", valueHint: "role" },
    claim: { type: "string", description: "The statement as said (checked for fallacies and coherence)", valueHint: "text" },
    rationale: { type: "string", description: "Why this overrides an established fact", valueHint: "text" },
    proof: { type: "string", description: "Explicit proof of a dependency", valueHint: "text" },
    trust: { type: "string", description: "Trust weight 10..1000 (default: the source's, else 500)", valueHint: "n" },
    new: { type: "boolean", description: "Create nodes for names that match none even when close names exist (\"Kaddy\" beside Caddy)" },
    ...scopeArgs,
    ...jsonArg,
    ...globalArgs,
  },
  run: ({ args }) => {
    if (args.source !== undefined && args["doc-type"] === undefined) throw new GllamError("E_USAGE", "--source needs --doc-type (see `gllam fact add --help`)");
    const trustWeight = args.trust === undefined ? undefined : Number(args.trust);
    const validFrom = optionalTime(args["valid-from"], "--valid-from");
    const validUntil = optionalTime(args["valid-until"], "--valid-until");
    const scope = scopeOf(args);
    return withEngine(args, { create: true }, async (gllam) => {
      const lookups = [lookUpName(gllam, args.src, scope), lookUpName(gllam, args.dst, scope)];
      await consentToNewNodes(lookups, scope, { allowNew: args.new === true, ask: terminalAsk() });
      const result = gllam.store.transaction(() => {
        const [src, dst] = lookups.map((lookup) => factEnd(gllam, lookup, scope)) as [FactEnd, FactEnd];
        const origin =
          args.source === undefined
            ? undefined
            : gllam.attributeContainerEntryToSource(args["doc-type"]!, args.source, "", args.claim ?? "", undefined, {
                role: args.role,
                scope,
              });
        const added = gllam.addEdge({
          scope,
          sourceId: src.id,
          targetId: dst.id,
          relationship: args.rel,
          caveats: args.caveat,
          conditions: args.condition,
          validFrom,
          validUntil,
          originSourceId: origin?.sourceId,
          trustWeight,
          claim: args.claim,
          rationale: args.rationale,
          proof: args.proof,
        });
        return { ...added, subject: src, object: dst, created: [src, dst].filter((n) => n.created).map((n) => n.id) };
      });
      console.log(args.json ? JSON.stringify(result, null, 2) : formatAddEdge(result, [result.subject, result.object]));
    });
  },
});

const listCommand = defineCommand({
  meta: { name: "list", description: "The facts about a node: active now, at --as-of, or as believed at --known-at" },
  args: {
    node: { type: "positional", description: "Node (name, id or alias)", required: true },
    "as-of": { type: "string", description: "World time the facts must hold at (ISO-8601)", valueHint: "date" },
    "known-at": { type: "string", description: "System time: what the engine believed then", valueHint: "date" },
    ...scopeArgs,
    ...jsonArg,
    ...globalArgs,
  },
  run: ({ args }) => {
    const asOf = optionalTime(args["as-of"], "--as-of");
    const knownAt = optionalTime(args["known-at"], "--known-at");
    const scope = scopeOf(args);
    return withEngine(args, { readOnly: true }, async (gllam) => {
      const { id } = nodeNamed(gllam, args.node, scope);
      const node = gllam.getNode(id, { scope })!;
      const facts =
        knownAt === undefined
          ? gllam.describeFacts(id, { asOf, scope })
          : gllam.asKnownAt(id, { knownAt, asOf, scope }).map((link) => {
              const otherId = link.direction === "out" ? link.targetId : link.sourceId;
              return { ...link, otherId, otherName: gllam.getNode(otherId, { scope })?.name ?? otherId };
            });
      if (args.json) return console.log(JSON.stringify({ node, facts }, null, 2));
      const when = knownAt === undefined ? `at ${formatDay(asOf ?? Date.now())}` : `as believed at ${formatDay(knownAt)}`;
      console.log([`${node.name} (${node.type}) ${when}:`, ...(facts.length > 0 ? facts.map((f) => formatLink(f, node.name)) : ["- (no facts)"])].join("\n"));
      if (node.caveatSummary && knownAt === undefined) console.log(`\nCaveat summary: ${node.caveatSummary}`);
    });
  },
});

function formatVersion(version: LinkVersion): string {
  const { link } = version;
  const span = `${formatDay(link.validFrom)} → ${link.validUntil === null ? "now" : formatDay(link.validUntil)}`;
  const who = version.source ? `${version.source.docType}/${version.source.displayName || version.source.handle}` : "unattributed";
  const ended = version.ended ? ` — ${version.ended}` : "";
  return `[link ${link.id}] ${span}  ${version.targetName}  trust ${link.trustWeight}, ${who}, recorded ${formatDay(link.recordedAt)}  (${version.status}${ended})`;
}

const historyCommand = defineCommand({
  meta: { name: "history", description: "Every version of SRC REL: valid times, who said it, why it ended" },
  args: {
    src: { type: "positional", description: "Subject node (name, id or alias)", required: true },
    rel: { type: "positional", description: "Relationship", required: true },
    ...scopeArgs,
    ...jsonArg,
    ...globalArgs,
  },
  run: ({ args }) => {
    const scope = scopeOf(args);
    return withEngine(args, { readOnly: true }, async (gllam) => {
      const { id } = nodeNamed(gllam, args.src, scope);
      const versions = gllam.linkHistory(id, args.rel, { scope });
      if (args.json) return console.log(JSON.stringify(versions, null, 2));
      console.log(versions.length > 0 ? versions.map(formatVersion).join("\n") : `no ${args.rel} links from ${id}`);
    });
  },
});

const parseLinkId = (value: string) => {
  const id = Number(value);
  if (!Number.isInteger(id) || id < 1) throw new GllamError("E_BAD_INPUT", `a link id is a positive integer, got ${value}`);
  return id;
};

const invalidateCommand = defineCommand({
  meta: { name: "invalidate", description: "End a link in world time (it is kept, believed for its interval)" },
  args: {
    link: { type: "positional", description: "Link id", required: true },
    at: { type: "string", description: "When it stopped holding (default now)", valueHint: "date" },
    ...scopeArgs,
    ...globalArgs,
  },
  run: ({ args }) => {
    const scope = scopeOf(args);
    const at = optionalTime(args.at, "--at") ?? Date.now();
    return withEngine(args, { create: false }, async (gllam) => {
      const result = gllam.invalidateObsoleteEdge(parseLinkId(args.link), at, { scope });
      console.log(`link ${result.linkId}: ${result.changed ? `ends ${formatDay(result.validUntil!)}` : result.reason}`);
    });
  },
});

const resolveCommand = defineCommand({
  meta: { name: "resolve", description: "Close an open contradiction in favour of one of its claims" },
  args: {
    contradiction: { type: "positional", description: "Contradiction node id", required: true },
    winner: { type: "positional", description: "The link id that is right", required: true },
    ...scopeArgs,
    ...globalArgs,
  },
  run: ({ args }) => {
    const scope = scopeOf(args);
    const winner = parseLinkId(args.winner);
    return withEngine(args, { create: false }, async (gllam) => {
      const result = gllam.resolveContradiction(args.contradiction, winner, { scope });
      console.log(`resolved ${result.contradictionId}: link ${result.winnerLinkId} believed, ${result.loserLinkIds.map((id) => `link ${id}`).join(", ")} retired`);
    });
  },
});

export const factCommand = defineCommand({
  meta: { name: "fact", description: "Record, list and trace facts of the semantic graph" },
  subCommands: { add: addCommand, list: listCommand, history: historyCommand, invalidate: invalidateCommand, resolve: resolveCommand },
});
