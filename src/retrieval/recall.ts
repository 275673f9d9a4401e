import type { Store } from "../engine/store.ts";
import { GllamError } from "../engine/errors.ts";
import { hasVectorTables } from "../engine/schema.ts";
import { embedOne, type Embedder } from "../embed/embedder.ts";
import type { SemanticNode, SimilarNode } from "../memory/types.ts";
import { describeFacts, type FactDetails } from "../semantic/facts.ts";
import type { DirectedLink } from "../semantic/links.ts";
import { findNodesByName, readNodes } from "../semantic/nodes.ts";
import { assertSameEmbeddingModel, knnNodes } from "../semantic/node-vectors.ts";

export type RecallOptions = {
  /** Entity names (or ids, or aliases) the caller says the query is about. */
  entities?: string[];
  scope?: string;
  /** How many similar nodes to return (1..100, default 5). */
  k?: number;
  /** World time to read facts at (default now). */
  asOf?: number;
};

/** An active fact with the other end's name; describeFacts adds source, contradictions, fallacies. */
export type RecalledLink = DirectedLink & { otherId: string; otherName: string } & Partial<FactDetails>;
export type RecalledNode = { node: SemanticNode; matchedBy: "entity" | "similarity"; links: RecalledLink[] };
export type RecallResult = {
  query: string;
  scope: string;
  asOf: number;
  focus: RecalledNode[];
  similar: SimilarNode[];
  unresolvedEntities: string[];
};

/**
 * First recall over the semantic layer: the query is embedded once; the focus is the named
 * entities, or else the nearest node; each focus node comes with its active links and caveats.
 */
export async function recall(store: Store, embedder: Embedder, query: string, options: RecallOptions = {}): Promise<RecallResult> {
  const text = query.trim();
  if (!text) throw new GllamError("E_BAD_INPUT", "query is empty");
  const k = options.k ?? 5;
  if (!Number.isInteger(k) || k < 1 || k > 100) throw new GllamError("E_BAD_INPUT", `k must be an integer in 1..100, got ${k}`);
  const scope = options.scope ?? "default";
  const asOf = options.asOf ?? Date.now();
  const db = store.dbRO();

  let similar: SimilarNode[] = [];
  if (hasVectorTables(db)) {
    assertSameEmbeddingModel(db, embedder);
    similar = knnNodes(db, await embedOne(embedder, text), k, scope);
  }

  const unresolvedEntities: string[] = [];
  const focusNodes: { node: SemanticNode; matchedBy: RecalledNode["matchedBy"] }[] = [];
  for (const name of options.entities ?? []) {
    const node = findNodesByName(store, name, scope)[0];
    if (!node) unresolvedEntities.push(name);
    else if (!focusNodes.some((f) => f.node.id === node.id)) focusNodes.push({ node, matchedBy: "entity" });
  }
  if (focusNodes.length === 0 && similar[0]) {
    const [nearest] = readNodes(store, [similar[0].nodeId]);
    if (nearest) focusNodes.push({ node: nearest, matchedBy: "similarity" });
  }

  const focus = focusNodes.map(({ node, matchedBy }) => ({ node, matchedBy, links: describeFacts(store, node.id, { asOf }) }));
  return { query: text, scope, asOf, focus, similar, unresolvedEntities };
}
