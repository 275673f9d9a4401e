import { defineCommand } from "citty";
import { explainTrustWeight } from "../../gllam/tools.ts";
import { globalArgs } from "../context.ts";
import { optionalTime } from "./fact.ts";

const explainCommand = defineCommand({
  meta: { name: "explain", description: "Compute a composite trust weight and show every part (no database needed)" },
  args: {
    "doc-type": { type: "string", description: "Document type (jira_resolved, slack, draft, or a custom one)", valueHint: "type", required: true },
    source: { type: "string", description: "The individual's handle", valueHint: "handle" },
    role: { type: "string", description: "Role fallback (tech_lead, system_cicd, ...)", valueHint: "role" },
    text: { type: "string", description: "The entry's text (coherence check)", valueHint: "text" },
    "authored-at": { type: "string", description: "When it was written (freshness)", valueHint: "date" },
    json: { type: "boolean", description: "Print the breakdown as JSON" },
    ...globalArgs,
  },
  run: async ({ args }) => {
    const { breakdown, lines } = await explainTrustWeight(
      { docType: args["doc-type"], handle: args.source, role: args.role, text: args.text, authoredAt: optionalTime(args["authored-at"], "--authored-at") },
      args.config,
    );
    console.log(args.json ? JSON.stringify(breakdown, null, 2) : lines.join("\n"));
  },
});

export const trustCommand = defineCommand({
  meta: { name: "trust", description: "Source trust weights" },
  subCommands: { explain: explainCommand },
});
