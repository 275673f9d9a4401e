import { defineCommand } from "citty";
import { version } from "../../../package.json";
import { GllamSession } from "../../gllam/session.ts";
import { mcpNotices, serveMcpStdio } from "../../server/mcp/server.ts";
import { globalArgs, scopeArg, scopeOf, settingsOf } from "../context.ts";

export const mcpCommand = defineCommand({
  meta: {
    name: "mcp",
    description: "MCP server on stdin/stdout for agent runtimes (Claude Desktop, Cursor, any MCP client): remember, recall, add_fact, facts, fact_history, forget, plan, stats, backup, doctor",
  },
  args: { scope: { ...scopeArg, description: "Scope of tool calls that name none (default: default)" }, ...globalArgs },
  run: async ({ args }) => {
    const scope = scopeOf(args);
    if (process.stdin.isTTY) process.stderr.write("gllam mcp: serving MCP on stdin/stdout for an MCP client (see README, MCP server); Ctrl-C leaves\n");
    await serveMcpStdio({ session: new GllamSession(settingsOf(args), mcpNotices), scope, version });
  },
});
