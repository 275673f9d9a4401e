import { defineCommand } from "citty";
import { GllamError } from "../../engine/errors.ts";
import { parseOperationInput } from "../../gllam/operation.ts";
import { forget } from "../../gllam/operations.ts";
import type { ForgetTarget } from "../../gllam/types.ts";
import { globalArgs, scopeArg, scopeOf, withEngine } from "../context.ts";

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
      const targets: Record<Kind, () => ForgetTarget> = {
        node: () => ({ node: args.id, scope }),
        link: () => ({ link: rowId(kind, args.id), scope }),
        source: () => ({ source: args.id, scope }),
        episode: () => ({ episode: rowId(kind, args.id), scope }),
        session: () => ({ session: args.id, scope }),
      };
      const input = parseOperationInput(forget, targets[kind]());
      return withEngine(args, { create: false }, async (gllam) => {
        const report = await forget.run(gllam, input);
        console.log(args.json ? JSON.stringify(report, null, 2) : forget.toText(report));
      });
    },
  });

export const forgetCommand = defineCommand({
  meta: { name: "forget", description: "Remove a node, link, source, episode or session and everything derived only from it (one transaction), leaving no copy in the file" },
  subCommands: { node: forgetKind("node"), link: forgetKind("link"), source: forgetKind("source"), episode: forgetKind("episode"), session: forgetKind("session") },
});
