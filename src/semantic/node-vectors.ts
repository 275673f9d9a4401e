import type { Database } from "bun:sqlite";
import type { Store } from "../engine/store.ts";
import { GllamError } from "../engine/errors.ts";
import { readMetadata, writeMetadata } from "../engine/metadata.ts";
import { ensureVectorTables, hasVectorTables } from "../engine/schema.ts";
import { embedOne, type Embedder } from "../embed/embedder.ts";
import type { SemanticNode, SimilarNode } from "../memory/types.ts";
import { parseScope } from "../memory/parse.ts";
import { readNodes } from "./nodes.ts";

/** The text a node is embedded as: "Name (type): context. Also called a, b." */
export function nodeEmbeddingText(node: Pick<SemanticNode, "name" | "type" | "contextPrompt" | "aliases">): string {
  const context = node.contextPrompt.trim();
  const aliases = node.aliases.length > 0 ? ` Also called ${node.aliases.join(", ")}.` : "";
  return `${node.name} (${node.type})${context ? `: ${context}` : ""}${aliases}`;
}

export type EmbeddingModelCheck = { drift: boolean; previousModel: string | undefined; activeModel: string };

/** Compares the model that wrote the stored vectors with the active embedder (seed: checkEmbeddingModelVersion). */
export function checkEmbeddingModelVersion(db: Database, embedder: Embedder): EmbeddingModelCheck {
  const previousModel = readMetadata(db, "embedding_model_version");
  return { drift: previousModel !== undefined && previousModel !== embedder.modelVersion, previousModel, activeModel: embedder.modelVersion };
}

/** Throws E_EMBEDDING_DRIFT when stored vectors come from another model than the active embedder. */
export function assertSameEmbeddingModel(db: Database, embedder: Embedder): void {
  const check = checkEmbeddingModelVersion(db, embedder);
  if (check.drift) {
    throw new GllamError(
      "E_EMBEDDING_DRIFT",
      `stored vectors come from ${check.previousModel}, the active embedder is ${check.activeModel} (run \`gllam reembed\` or use the original embedder)`,
    );
  }
}

/**
 * Before writing vectors, inside the write transaction (another process may be writing too): the
 * stored vectors must come from this embedder's model; the first vectors fix the model and dimension.
 */
export function claimVectorSpace(db: Database, embedder: Embedder, dims: number): void {
  assertSameEmbeddingModel(db, embedder);
  ensureVectorTables(db, dims);
  if (readMetadata(db, "embedding_model_version") === undefined) writeMetadata(db, "embedding_model_version", embedder.modelVersion);
}

/**
 * Embeds nodes in one batch and stores their vectors (replacing older ones). Returns how many were
 * stored. With a scope, a node of another scope is missing; without, ids of any scope (the engine's).
 */
export async function storeNodeEmbeddings(store: Store, embedder: Embedder, nodeIds: string[], scope?: string): Promise<number> {
  const nodes = readNodes(store, nodeIds, scope === undefined ? undefined : parseScope(scope));
  const missing = nodeIds.filter((id) => !nodes.some((node) => node.id === id));
  if (missing.length > 0) throw new GllamError("E_NOT_FOUND", `no node ${missing.slice(0, 5).join(", ")}`);
  if (nodes.length === 0) return 0;
  const vectors = await embedder.embed(nodes.map(nodeEmbeddingText));
  const db = store.db();
  // Checked inside the write transaction: another process may be storing vectors at the same time.
  store.transaction(() => {
    claimVectorSpace(db, embedder, vectors[0]!.length);
    const remove = db.query("DELETE FROM semantic_embeddings WHERE node_id = ?");
    const insert = db.query("INSERT INTO semantic_embeddings (node_id, scope, embedding) VALUES (?, ?, ?)");
    nodes.forEach((node, i) => {
      remove.run(node.id);
      insert.run(node.id, node.scope, vectors[i]!);
    });
  });
  return nodes.length;
}

export type SimilarNodeOptions = { scope?: string };

/** The nodes nearest a text by cosine distance (vec0 KNN within the scope's partition), closest first. */
export async function searchSimilarNodes(
  store: Store,
  embedder: Embedder,
  query: string,
  limit: number,
  options: SimilarNodeOptions = {},
): Promise<SimilarNode[]> {
  if (!Number.isInteger(limit) || limit < 1 || limit > 4096) {
    throw new GllamError("E_BAD_INPUT", `limit must be an integer in 1..4096, got ${limit}`);
  }
  const db = store.dbRO();
  if (!hasVectorTables(db)) return [];
  assertSameEmbeddingModel(db, embedder);
  return knnNodes(db, await embedOne(embedder, query), limit, parseScope(options.scope));
}

export function knnNodes(db: Database, vector: Float32Array, limit: number, scope: string): SimilarNode[] {
  return db
    .query<SimilarNode, [Float32Array, number, string]>(
      `SELECT v.node_id AS nodeId, n.name, n.type, v.distance
       FROM semantic_embeddings v JOIN semantic_nodes n ON n.id = v.node_id
       WHERE v.embedding MATCH ? AND v.k = ? AND v.scope = ?
       ORDER BY v.distance`,
    )
    .all(vector, limit, scope);
}

/** Stored vectors of these nodes (those that have one). */
export function readNodeVectors(db: Database, nodeIds: readonly string[]): Map<string, Float32Array> {
  if (nodeIds.length === 0 || !hasVectorTables(db)) return new Map();
  const rows = db
    .query<{ nodeId: string; embedding: Uint8Array }, [string]>(
      "SELECT node_id AS nodeId, embedding FROM semantic_embeddings WHERE node_id IN (SELECT value FROM json_each(?))",
    )
    .all(JSON.stringify(nodeIds));
  // Copied: the blob's buffer may not be 4-byte aligned.
  return new Map(rows.map((row) => [row.nodeId, new Float32Array(Uint8Array.from(row.embedding).buffer)]));
}

/** Vectors for these nodes from the active embedder: stored ones, the rest embedded and stored now. */
export async function ensureNodeVectors(store: Store, embedder: Embedder, nodeIds: readonly string[]): Promise<Map<string, Float32Array>> {
  assertSameEmbeddingModel(store.dbRO(), embedder);
  const stored = readNodeVectors(store.dbRO(), nodeIds);
  const missing = nodeIds.filter((id) => !stored.has(id));
  for (let i = 0; i < missing.length; i += 256) await storeNodeEmbeddings(store, embedder, missing.slice(i, i + 256));
  return missing.length === 0 ? stored : readNodeVectors(store.dbRO(), nodeIds);
}

/** Cosine similarity of two vectors of one length (0 when either is all zeros). */
export function cosineSimilarity(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
