import { defineCommand } from "citty";
import { GllamError } from "../../engine/errors.ts";
import type { ForgetReport, ForgetTarget } from "../../semantic/forget.ts";
import { globalArgs, scopeArg, scopeOf, withEngine } from "../context.ts";
import { nodeNamed } from "../node-names.ts";

function formatReport(report: ForgetReport): string {
  const r = report.removed;
  const lines = [
    `removed ${r.nodes.length} nodes, ${r.links.length} links, ${r.sources.length} sources, ${r.episodes.length} episodes`,
    `        ${r.linkEvents} link events, ${r.nameKeys} name keys, ${r.nodeVectors} node vectors, ${r.episodeVectors} episode vectors, ${r.mentions} mentions`,
  ];
  if (r.nodes.length > 0) lines.push(`nodes: ${r.nodes.join(", ")}`);
  if (r.links.length > 0) lines.push(`links: ${r.links.join(", ")}`);
  if (report.restored.length > 0) lines.push(`believed again: links ${report.restored.join(", ")}`);
  if (report.reattributed.length > 0) lines.push(`kept on other evidence: links ${report.reattributed.join(", ")}`);
  return lines.join("\n");
}

const forgetKind = (kind: "node" | "link" | "source") =>
  defineCommand({
    meta: { name: kind, description: `Forget a ${kind} and everything derived only from it` },
    args: {
      id: { type: "positional", description: kind === "node" ? "Node (name, id or alias)" : `${kind} id`, required: true },
      scope: scopeArg,
      json: { type: "boolean", description: "Print the report as JSON" },
      ...globalArgs,
    },
    run: ({ args }) => {
      const scope = scopeOf(args);
      return withEngine(args, { create: false }, async (gllam) => {
        let target: ForgetTarget;
        if (kind === "node") target = { node: nodeNamed(gllam, args.id, scope).id, scope };
        else if (kind === "source") target = { source: args.id, scope };
        else {
          const id = Number(args.id);
          if (!Number.isInteger(id) || id < 1) throw new GllamError("E_BAD_INPUT", `a link id is a positive integer, got ${args.id}`);
          target = { link: id, scope };
        }
        const report = gllam.forget(target);
        console.log(args.json ? JSON.stringify(report, null, 2) : formatReport(report));
      });
    },
  });

export const forgetCommand = defineCommand({
  meta: { name: "forget", description: "Remove a node, link or source and everything derived only from it (one transaction)" },
  subCommands: { node: forgetKind("node"), link: forgetKind("link"), source: forgetKind("source") },
});
