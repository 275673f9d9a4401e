import { defineCommand } from "citty";
import { version } from "../../../package.json";
import { GllamSession } from "../../gllam/session.ts";
import { backgroundWorkersArg, globalArgs, integerFlag, scopeArg, scopeOf, settingsOf } from "../context.ts";

export const mcpCommand = defineCommand({
  meta: {
    name: "mcp",
    description: "MCP server on stdin/stdout for agent runtimes (Claude Desktop, Cursor, any MCP client): remember, recall, add_fact, facts, fact_history, forget, plan, stats, backup, doctor",
  },
  args: {
    scope: { ...scopeArg, description: "Scope of tool calls that name none (default: default)" },
    workers: backgroundWorkersArg,
    ...globalArgs,
  },
  run: async ({ args }) => {
    const scope = scopeOf(args);
    const workers = integerFlag(args.workers, 1, "--workers", 0, 16);
    if (process.stdin.isTTY) process.stderr.write("gllam mcp: serving MCP on stdin/stdout for an MCP client (see README, MCP server); Ctrl-C leaves\n");
    // Loaded here, not with the CLI: the SDK would add a quarter second to every other command's start.
    const { mcpNotices, serveMcpStdio } = await import("../../server/mcp/server.ts");
    await serveMcpStdio({ session: new GllamSession(settingsOf(args), mcpNotices), scope, version, workers });
  },
});
