import { defineCommand } from "citty";
import { GllamError } from "../../engine/errors.ts";
import type { ForgetReport, ForgetTarget } from "../../semantic/forget.ts";
import { globalArgs, scopeArg, scopeOf, withEngine } from "../context.ts";
import { nodeNamed } from "../node-names.ts";

function formatReport(report: ForgetReport): string {
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
  if (!report.walPurged) lines.push("another process is reading an older snapshot: the WAL keeps old pages until the next checkpoint");
  return lines.join("\n");
}

type Kind = "node" | "link" | "source" | "episode" | "session";

const POSITIONAL: Record<Kind, string> = {
  node: "Node (name, id or alias)",
  link: "Link id",
  source: "Source id, or its handle when only one source of the scope has it",
  episode: "Episode id",
  session: "Session id",
};

/** A row id given on the command line. */
function rowId(kind: Kind, value: string): number {
  const id = Number(value);
  if (!Number.isInteger(id) || id < 1) throw new GllamError("E_BAD_INPUT", `${kind === "link" ? "a link" : "an episode"} id is a positive integer, got ${value}`);
  return id;
}

const forgetKind = (kind: Kind) =>
  defineCommand({
    meta: { name: kind, description: `Forget a ${kind} and everything derived only from it` },
    args: {
      id: { type: "positional", description: POSITIONAL[kind], required: true },
      scope: scopeArg,
      json: { type: "boolean", description: "Print the report as JSON" },
      ...globalArgs,
    },
    run: ({ args }) => {
      const scope = scopeOf(args);
      return withEngine(args, { create: false }, async (gllam) => {
        const targets: Record<Kind, () => ForgetTarget> = {
          node: () => ({ node: nodeNamed(gllam, args.id, scope).id, scope }),
          link: () => ({ link: rowId(kind, args.id), scope }),
          source: () => ({ source: args.id, scope }),
          episode: () => ({ episode: rowId(kind, args.id), scope }),
          session: () => ({ session: args.id, scope }),
        };
        const report = gllam.forget(targets[kind]());
        console.log(args.json ? JSON.stringify(report, null, 2) : formatReport(report));
      });
    },
  });

export const forgetCommand = defineCommand({
  meta: { name: "forget", description: "Remove a node, link, source, episode or session and everything derived only from it (one transaction), leaving no copy in the file" },
  subCommands: { node: forgetKind("node"), link: forgetKind("link"), source: forgetKind("source"), episode: forgetKind("episode"), session: forgetKind("session") },
});
