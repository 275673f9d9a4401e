import { defineCommand } from "citty";
import { GllamError } from "../../engine/errors.ts";
import { parseOperationInput } from "../../gllam/operation.ts";
import { addFact, factHistory, facts, importFactsOperation } from "../../gllam/operations.ts";
import { parseJsonLines, readTextFile } from "../../gllam/types.ts";
import { parseInput } from "../../memory/parse.ts";
import { TimestampSchema } from "../../memory/types.ts";
import { formatDay } from "../../gllam/types.ts";
import { globalArgs, scopeArg, scopeOf, withEngine } from "../context.ts";
import { consentToNewNodes, terminalAsk } from "../node-names.ts";
import { numberFlag } from "./recall.ts";

export const optionalTime = (value: string | undefined, flag: string) => (value === undefined ? undefined : parseInput(TimestampSchema, value, flag));

const scopeArgs = { scope: scopeArg } as const;
export const jsonArg = { json: { type: "boolean", description: "Print the result as JSON" } } as const;

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
    const input = parseOperationInput(addFact, {
      subject: args.src,
      relationship: args.rel,
      object: args.dst,
      caveats: args.caveat,
      conditions: args.condition,
      valid_from: args["valid-from"],
      valid_until: args["valid-until"],
      source: args.source === undefined ? undefined : { handle: args.source, doc_type: args["doc-type"], role: args.role },
      claim: args.claim,
      rationale: args.rationale,
      proof: args.proof,
      trust: numberFlag(args.trust),
      allow_new: args.new === true,
      scope: scopeOf(args),
    });
    return withEngine(args, { create: true }, async (gllam) => {
      // On a terminal a name close to existing ones is asked about; piped, the facade refuses it.
      const lookups = [gllam.lookUpName(input.subject, input), gllam.lookUpName(input.object, input)];
      const allowNew = input.allow_new || (await consentToNewNodes(lookups, input.scope, terminalAsk()));
      const result = await addFact.run(gllam, { ...input, allow_new: allowNew });
      console.log(args.json ? JSON.stringify(result, null, 2) : addFact.toText(result));
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
    const input = parseOperationInput(facts, { node: args.node, as_of: args["as-of"], known_at: args["known-at"], scope: scopeOf(args) });
    return withEngine(args, { readOnly: true }, async (gllam) => {
      const result = await facts.run(gllam, input);
      console.log(args.json ? JSON.stringify({ node: result.node, facts: result.facts }, null, 2) : facts.toText(result));
    });
  },
});

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
    const input = parseOperationInput(factHistory, { subject: args.src, relationship: args.rel, scope: scopeOf(args) });
    return withEngine(args, { readOnly: true }, async (gllam) => {
      const result = await factHistory.run(gllam, input);
      console.log(args.json ? JSON.stringify(result.versions, null, 2) : factHistory.toText(result));
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

const importCommand = defineCommand({
  meta: { name: "import", description: "Record pre-structured facts from a JSONL file (one add_fact object a line), without an LLM; all or none" },
  args: {
    file: { type: "positional", description: "JSONL file (- for stdin)", required: true },
    ...scopeArgs,
    ...jsonArg,
    ...globalArgs,
  },
  run: async ({ args }) => {
    const where = args.file === "-" ? "stdin" : args.file;
    const text = await readTextFile(args.file);
    const rows = parseJsonLines(text, where);
    return withEngine(args, { create: true }, async (gllam) => {
      const input = parseOperationInput(importFactsOperation, { facts: rows.map((row) => row.value), scope: scopeOf(args) });
      let report;
      try {
        report = await importFactsOperation.run(gllam, input);
      } catch (error) {
        // Errors name the line of the file, not the fact's position among the non-blank lines.
        const at = error instanceof GllamError ? /^(?:invalid )?fact (\d+)/.exec(error.message) : null;
        if (!at) throw error;
        const line = `${where}:${rows[Number(at[1]) - 1]!.line}`;
        throw new GllamError((error as GllamError).code, (error as GllamError).message.replace(/^(invalid )?fact \d+/, (_, invalid = "") => `${invalid}${line}`));
      }
      console.log(args.json ? JSON.stringify(report, null, 2) : importFactsOperation.toText(report));
    });
  },
});

export const factCommand = defineCommand({
  meta: { name: "fact", description: "Record, import, list and trace facts of the semantic graph" },
  subCommands: { add: addCommand, import: importCommand, list: listCommand, history: historyCommand, invalidate: invalidateCommand, resolve: resolveCommand },
});
