/** What a node is embedded as, in both tiers. */
import type { QueuedText } from "../embed/embedder.ts";
import type { SemanticNode } from "../memory/types.ts";
import { parseJsonColumn } from "../memory/parse.ts";

/** The text a node is embedded as: "Name (type): context. Also called a, b." */
export function nodeEmbeddingText(node: Pick<SemanticNode, "name" | "type" | "contextPrompt" | "aliases">): string {
  const context = node.contextPrompt.trim();
  const aliases = node.aliases.length > 0 ? ` Also called ${node.aliases.join(", ")}.` : "";
  return `${node.name} (${node.type})${context ? `: ${context}` : ""}${aliases}`;
}

/** The columns nodeText reads, from semantic_nodes aliased `n`. */
export const NODE_TEXT_COLUMNS = "n.id, n.scope, n.name, n.type, n.aliases, n.context_prompt AS contextPrompt";
export type NodeTextRow = { id: string; scope: string; name: string; type: string; aliases: string; contextPrompt: string };

/** A node row (NODE_TEXT_COLUMNS) as the text it is embedded as. */
export function nodeText(row: NodeTextRow): QueuedText & { key: string } {
  return { key: row.id, scope: row.scope, text: nodeEmbeddingText({ ...row, aliases: parseJsonColumn<string[]>(row.aliases, []) }) };
}
