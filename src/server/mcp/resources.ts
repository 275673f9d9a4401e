/**
 * MCP resources: read-only views a client can attach to a conversation, each an operation's
 * Markdown (`gllam://stats`; `gllam://node/{id}`: a node's facts, by id, name or alias). The list
 * names the scope's nodes (the seeded sample's ten, say) up to a limit; any node is readable by URI.
 */
import type { ReadResourceResult, Resource, ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
import { openModeOf, runOperation, type Operation } from "../../gllam/operation.ts";
import { facts, stats } from "../../gllam/operations.ts";
import type { GllamSession } from "../../gllam/session.ts";
import { GllamError, isGllamError } from "../../gllam/types.ts";

const MARKDOWN = "text/markdown";
const NODE_PREFIX = "gllam://node/";
/** Nodes listed at most: a client shows the list to a person; the template reaches the rest. */
export const LISTED_NODES = 100;

const STATIC_RESOURCES: Resource[] = [{ uri: "gllam://stats", name: "stats", title: "Memory statistics", description: stats.summary, mimeType: MARKDOWN }];

export const RESOURCE_TEMPLATES: ResourceTemplate[] = [
  { uriTemplate: `${NODE_PREFIX}{id}`, name: "node", title: "A node's facts", description: "The active facts about a node (id, name or alias), with sources, trust and caveats", mimeType: MARKDOWN },
];

/** The fixed resources, then the scope's first nodes in taxonomy order (none before the file exists). */
export async function listResources(session: GllamSession, scope: string): Promise<Resource[]> {
  try {
    const gllam = await session.open({ readOnly: true });
    const nodes = gllam.getNodesByTaxonomyPrefix("/", { scope, limit: LISTED_NODES });
    return [
      ...STATIC_RESOURCES,
      ...nodes.map((node) => ({ uri: `${NODE_PREFIX}${encodeURIComponent(node.id)}`, name: node.name, title: `${node.name} (${node.type})`, description: node.contextPrompt || undefined, mimeType: MARKDOWN })),
    ];
  } catch (error) {
    if (isGllamError(error, "E_NOT_FOUND")) return STATIC_RESOURCES;
    throw error;
  }
}

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
