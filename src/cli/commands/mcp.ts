import { defineCommand } from "citty";
import * as v from "valibot";
import { version } from "../../../package.json";
import { IntegerSchema } from "../../gllam/operation.ts";
import { GllamSession } from "../../gllam/session.ts";
import { GllamError } from "../../gllam/types.ts";
import { globalArgs, scopeArg, scopeOf, settingsOf } from "../context.ts";

/** --workers N: background embedding workers, 0..16 (default 1). */
function workersOf(text: string | undefined): number {
  if (text === undefined) return 1;
  const result = v.safeParse(IntegerSchema(0, 16), Number(text));
  if (!result.success) throw new GllamError("E_BAD_INPUT", `invalid --workers "${text}": ${result.issues[0].message}`);
  return result.output;
}

export const mcpCommand = defineCommand({
  meta: {
    name: "mcp",
    description: "MCP server on stdin/stdout for agent runtimes (Claude Desktop, Cursor, any MCP client): remember, recall, add_fact, facts, fact_history, forget, plan, stats, backup, doctor",
  },
  args: {
    scope: { ...scopeArg, description: "Scope of tool calls that name none (default: default)" },
    workers: { type: "string", description: "Background workers giving remembered episodes their model vectors (default 1; 0 for none)", valueHint: "n" },
    ...globalArgs,
  },
  run: async ({ args }) => {
    const scope = scopeOf(args);
    const workers = workersOf(args.workers);
    if (process.stdin.isTTY) process.stderr.write("gllam mcp: serving MCP on stdin/stdout for an MCP client (see README, MCP server); Ctrl-C leaves\n");
    // Loaded here, not with the CLI: the SDK would add a quarter second to every other command's start.
    const { mcpNotices, serveMcpStdio } = await import("../../server/mcp/server.ts");
    await serveMcpStdio({ session: new GllamSession(settingsOf(args), mcpNotices), scope, version, workers });
  },
});
