/**
 * MCP resources: read-only views a client can attach to a conversation, each an operation's
 * Markdown (`gllam://stats`; `gllam://node/{id}`: a node's facts, by id, name or alias).
 */
import type { ReadResourceResult, Resource, ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
import { openModeOf, runOperation, type Operation } from "../gllam/operation.ts";
import { facts, stats } from "../gllam/operations.ts";
import type { GllamSession } from "../gllam/session.ts";
import { GllamError } from "../gllam/types.ts";

const MARKDOWN = "text/markdown";
const NODE_PREFIX = "gllam://node/";

export const RESOURCES: Resource[] = [{ uri: "gllam://stats", name: "stats", title: "Memory statistics", description: stats.summary, mimeType: MARKDOWN }];

export const RESOURCE_TEMPLATES: ResourceTemplate[] = [
  { uriTemplate: `${NODE_PREFIX}{id}`, name: "node", title: "A node's facts", description: "The active facts about a node (id, name or alias), with sources, trust and caveats", mimeType: MARKDOWN },
];

/** The operation and raw input a resource URI stands for. */
function resolveUri(uri: string, scope: string): { operation: Operation; input: unknown } {
  if (uri === "gllam://stats") return { operation: stats as unknown as Operation, input: {} };
  if (uri.startsWith(NODE_PREFIX) && uri.length > NODE_PREFIX.length) {
    return { operation: facts as unknown as Operation, input: { node: decodeURIComponent(uri.slice(NODE_PREFIX.length)), scope } };
  }
  throw new GllamError("E_NOT_FOUND", `no resource ${uri} (gllam://stats, ${NODE_PREFIX}{id})`);
}

export async function readResource(uri: string, session: GllamSession, scope: string): Promise<ReadResourceResult> {
  const { operation, input } = resolveUri(uri, scope);
  const result = await runOperation(await session.open(openModeOf(operation)), operation, input);
  return { contents: [{ uri, mimeType: MARKDOWN, text: operation.toText(result) }] };
}
