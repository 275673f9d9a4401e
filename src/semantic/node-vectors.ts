/**
 * Node vectors of the model tier (semantic_embeddings): stored by storeNodeEmbeddings or by the
 * vector filler draining node_vector_queue, searched by vec0 KNN together with the static tier
 * (node-static-vectors.ts) for nodes whose model vector has not arrived yet.
 */
import type { Database } from "bun:sqlite";
import type { Store } from "../engine/store.ts";
import { GllamError } from "../engine/errors.ts";
import { readMetadata, writeMetadata } from "../engine/metadata.ts";
import { parseScope } from "../memory/parse.ts";
import { ensureVectorTables, hasTable, hasVectorTables, scopeHasModelVectors, VECTOR_TIERS, type VectorTier } from "../engine/schema.ts";
import { embedOne, type Embedder, type EmbeddingTiers, type QueuedText, type VectorQueue } from "../embed/embedder.ts";
import type { SimilarNode } from "../memory/types.ts";
import { knnStaticNodes, nodeStaticTierReady } from "./node-static-vectors.ts";
import { NODE_TEXT_COLUMNS, nodeEmbeddingText, nodeText, type NodeTextRow } from "./node-text.ts";
import { readNodes } from "./nodes.ts";

export type EmbeddingModelCheck = { drift: boolean; previousModel: string | undefined; activeModel: string };

/** Compares the model that wrote the stored vectors with the active embedder (seed: checkEmbeddingModelVersion). */
export function checkEmbeddingModelVersion(db: Database, embedder: Embedder): EmbeddingModelCheck {
  const previousModel = readMetadata(db, "embedding_model_version");
  return { drift: previousModel !== undefined && previousModel !== embedder.modelVersion, previousModel, activeModel: embedder.modelVersion };
}

/** Throws E_EMBEDDING_DRIFT when stored vectors come from another model than the active embedder. */
export function assertSameEmbeddingModel(db: Database, embedder: Embedder): void {
  const check = checkEmbeddingModelVersion(db, embedder);
  if (check.drift) throw driftError(check);
}

const driftError = (check: EmbeddingModelCheck) =>
  new GllamError("E_EMBEDDING_DRIFT", `stored vectors come from ${check.previousModel}, the active embedder is ${check.activeModel} (run \`gllam reembed\` or use the original embedder)`);

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
 * Stores model vectors of nodes (replacing older ones) and takes them off the model queue; the
 * caller holds the write transaction. Only nodes whose text is still `texts[i]` are written (one
 * changed or forgotten meanwhile stays queued, or is gone). Returns how many were stored.
 */
function writeNodeVectors(db: Database, embedder: Embedder, items: QueuedText[], vectors: Float32Array[]): number {
  if (items.length === 0) return 0;
  claimVectorSpace(db, embedder, vectors[0]!.length);
  const current = db.query<NodeTextRow, [string]>(`SELECT ${NODE_TEXT_COLUMNS} FROM semantic_nodes n WHERE n.id = ?`);
  const remove = db.query("DELETE FROM semantic_embeddings WHERE node_id = ?");
  const insert = db.query("INSERT INTO semantic_embeddings (node_id, scope, embedding) VALUES (?, ?, ?)");
  const dequeue = db.query("DELETE FROM node_vector_queue WHERE tier = 'model' AND node_id = ?");
  let written = 0;
  items.forEach((item, i) => {
    const row = current.get(String(item.key));
    if (!row || nodeText(row).text !== item.text) return;
    remove.run(row.id);
    insert.run(row.id, row.scope, vectors[i]!);
    dequeue.run(row.id);
    written++;
  });
  return written;
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
  const items = nodes.map((node) => ({ key: node.id, scope: node.scope, text: nodeEmbeddingText(node) }));
  const vectors = await embedder.embed(items.map((item) => item.text));
  // Checked inside the write transaction: another process may be storing vectors at the same time.
  store.transaction(() => writeNodeVectors(store.db(), embedder, items, vectors));
  return nodes.length;
}

/** Nodes waiting for a model vector, for the vector filler (after a cursor, in id order). */
export function nodeVectorQueue(store: Store): VectorQueue {
  return {
    read: (after, limit) =>
      store
        .dbRO()
        .query<NodeTextRow, [string, number]>(
          `SELECT ${NODE_TEXT_COLUMNS} FROM node_vector_queue q JOIN semantic_nodes n ON n.id = q.node_id
           WHERE q.tier = 'model' AND q.node_id > ? ORDER BY q.node_id LIMIT ?`,
        )
        .all(after === undefined ? "" : String(after), limit)
        .map(nodeText),
    write: (embedder, items, vectors) => store.transaction(() => void writeNodeVectors(store.db(), embedder, items, vectors)),
  };
}

/** Queues every node of a tier that has no vector in it (nodes stored before that tier had an embedder). */
export function queueNodesWithoutVectors(db: Database, tier: VectorTier): number {
  const table = VECTOR_TIERS[tier].nodes;
  const exists = hasTable(db, table);
  return db
    .query(
      `INSERT INTO node_vector_queue (tier, node_id) SELECT ?, id FROM semantic_nodes n
       WHERE ${exists ? `NOT EXISTS (SELECT 1 FROM ${table} v WHERE v.node_id = n.id)` : "true"} ON CONFLICT DO NOTHING`,
    )
    .run(tier).changes;
}

export type SimilarNodeOptions = { scope?: string };

/** The query's vectors for node search: the model tier's (when its stored vectors can be searched) and the static tier's. */
export type NodeQueryVectors = { model?: Float32Array; static?: Float32Array };

/**
 * The nodes nearest a query, closest first: vec0 KNN over model vectors, and over static vectors
 * for the nodes still waiting for a model vector (all nodes when no model vector can be compared).
 * A node is listed once, by its model vector when it has one.
 */
export function nearestNodes(db: Database, vectors: NodeQueryVectors, limit: number, scope: string): SimilarNode[] {
  const model = vectors.model && hasVectorTables(db) ? knnNodes(db, vectors.model, limit, scope) : [];
  const statics = vectors.static ? knnStaticNodes(db, vectors.static, limit, scope, vectors.model !== undefined) : [];
  const seen = new Set(model.map((hit) => hit.nodeId));
  return [...model, ...statics.filter((hit) => !seen.has(hit.nodeId))].toSorted((a, b) => a.distance - b.distance).slice(0, limit);
}

/**
 * The query's vectors for each tier that can search this scope's nodes (and episodes: recall
 * shares them). The model runs only when the scope holds model vectors to compare with. Model
 * vectors of another model are not compared: `drift` says so, and the static tier answers alone.
 */
export async function embedNodeQuery(db: Database, tiers: EmbeddingTiers, query: string, scope: string): Promise<{ vectors: NodeQueryVectors; drift?: EmbeddingModelCheck }> {
  // Nodes are embedded by the model tier, or by the static embedder when it is the only one.
  const embedder = tiers.model ?? tiers.static;
  const check = embedder && scopeHasModelVectors(db, scope) ? checkEmbeddingModelVersion(db, embedder) : undefined;
  const vectors: NodeQueryVectors = {};
  if (check && !check.drift) vectors.model = await embedOne(embedder!, query);
  if (tiers.static && nodeStaticTierReady(db, tiers.static)) vectors.static = tiers.static.embedSync([query])[0];
  return check?.drift ? { vectors, drift: check } : { vectors };
}

/** The nodes nearest a text by cosine distance (vec0 KNN within the scope's partition), closest first. */
export async function searchSimilarNodes(store: Store, tiers: EmbeddingTiers, query: string, limit: number, options: SimilarNodeOptions = {}): Promise<SimilarNode[]> {
  if (!Number.isInteger(limit) || limit < 1 || limit > 4096) {
    throw new GllamError("E_BAD_INPUT", `limit must be an integer in 1..4096, got ${limit}`);
  }
  const db = store.dbRO();
  const scope = parseScope(options.scope);
  const { vectors, drift } = await embedNodeQuery(db, tiers, query, scope);
  if (drift) throw driftError(drift);
  return nearestNodes(db, vectors, limit, scope);
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
