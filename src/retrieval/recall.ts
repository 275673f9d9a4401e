import type { Store } from "../engine/store.ts";
import { GllamError } from "../engine/errors.ts";
import { parseScope } from "../memory/parse.ts";
import type { EmbeddingTiers } from "../embed/embedder.ts";
import type { SemanticNode, SimilarNode } from "../memory/types.ts";
import { describeFacts, type FactDetails } from "../semantic/facts.ts";
import type { DirectedLink } from "../semantic/links.ts";
import { findNodesByName, readNodes } from "../semantic/nodes.ts";
import { embedNodeQuery, nearestNodes } from "../semantic/node-vectors.ts";
import { searchEpisodes, type EpisodeSearchHit, type SearchTuning } from "./search-episodes.ts";

export type RecallOptions = {
  /** Entity names (or ids, or aliases) the caller says the query is about. */
  entities?: string[];
  scope?: string;
  /** How many similar nodes to return (1..100, default 5). */
  k?: number;
  /** World time to read facts at (default now); episodes after it are left out. */
  asOf?: number;
  /** Only episodes that happened in [start, end). */
  window?: { start?: number; end?: number };
  /** How many episodes to return (0..1000, default 10). */
  episodes?: number;
  tuning?: Partial<SearchTuning>;
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
  episodes: EpisodeSearchHit[];
  unresolvedEntities: string[];
  /** Whether vectors (of either tier) took part (false: lexical only, see warnings). */
  denseUsed: boolean;
  warnings: string[];
};

/**
 * Recall over the semantic and episodic layers. The query is embedded once (nearest nodes and
 * episode KNN share the vector); the focus is the named entities, or else the nearest node, each
 * with its active links and caveats; episodes come from hybrid search, filtered to those that
 * mention the named entities when any were named. Vectors from another model are not compared:
 * recall then answers without them (words and the static tier) and says so in warnings.
 */
export async function recall(store: Store, tiers: EmbeddingTiers, query: string, options: RecallOptions = {}): Promise<RecallResult> {
  const text = query.trim();
  if (!text) throw new GllamError("E_BAD_INPUT", "query is empty");
  const k = options.k ?? 5;
  if (!Number.isInteger(k) || k < 1 || k > 100) throw new GllamError("E_BAD_INPUT", `k must be an integer in 1..100, got ${k}`);
  const scope = parseScope(options.scope);
  const asOf = options.asOf ?? Date.now();
  const episodeCount = options.episodes ?? 10;
  if (!Number.isInteger(episodeCount) || episodeCount < 0 || episodeCount > 1000) {
    throw new GllamError("E_BAD_INPUT", `episodes must be an integer in 0..1000, got ${episodeCount}`);
  }
  const db = store.dbRO();
  const warnings: string[] = [];

  const { vectors, drift } = await embedNodeQuery(db, tiers, text, scope);
  if (drift) {
    warnings.push(`stored vectors come from ${drift.previousModel}, the active embedder is ${drift.activeModel}: recalled ${vectors.static ? "by static vectors and words" : "lexically"} only (run \`gllam reembed\`)`);
  }
  const queryVector = vectors.model;
  const similar: SimilarNode[] = nearestNodes(db, vectors, k, scope);

  const unresolvedEntities: string[] = [];
  const focusNodes: { node: SemanticNode; matchedBy: RecalledNode["matchedBy"] }[] = [];
  for (const name of options.entities ?? []) {
    const node = findNodesByName(store, name, scope)[0];
    if (!node) unresolvedEntities.push(name);
    else if (!focusNodes.some((f) => f.node.id === node.id)) focusNodes.push({ node, matchedBy: "entity" });
  }
  if (focusNodes.length === 0 && similar[0]) {
    const [nearest] = readNodes(store, [similar[0].nodeId], scope);
    if (nearest) focusNodes.push({ node: nearest, matchedBy: "similarity" });
  }

  const focus = focusNodes.map(({ node, matchedBy }) => ({ node, matchedBy, links: describeFacts(store, node.id, { asOf, scope }) }));
  const named = focusNodes.filter((f) => f.matchedBy === "entity").map((f) => f.node.id);
  const episodes =
    episodeCount === 0
      ? undefined
      : await searchEpisodes(store, { model: queryVector && tiers.model, static: tiers.static }, text, {
          scope,
          k: episodeCount,
          asOf: options.asOf,
          window: options.window,
          nodeIds: named.length > 0 ? named : undefined,
          queryVector: tiers.model && queryVector,
          tuning: options.tuning,
        });
  if (episodes?.staticState === "drift") {
    warnings.push(`stored static vectors come from another static table than ${tiers.static?.modelVersion}: episodes recalled without them (run \`gllam reembed\`)`);
  }
  const denseUsed = queryVector !== undefined || vectors.static !== undefined || episodes?.staticUsed === true;
  return { query: text, scope, asOf, focus, similar, episodes: episodes?.hits ?? [], unresolvedEntities, denseUsed, warnings };
}
