/**
 * The static tier of node vectors (node_static_vectors): a node created, or whose embedded text
 * changed, is queued by trigger (node_vector_queue, tier 'static') and gets its vector before the
 * same transaction commits, from the engine's static embedder (Store.beforeCommit). So a node
 * from `fact add`, a merge or a disambiguation is found by similarity at once, before any model
 * vector exists.
 */
import type { Database } from "bun:sqlite";
import type { Store } from "../engine/store.ts";
import { hasTable } from "../engine/schema.ts";
import { toInt8Vector, type StaticEmbedder } from "../embed/static/static-embedder.ts";
import type { SimilarNode } from "../memory/types.ts";
import { staticTierState, writeStaticRows } from "../episodic/static-vectors.ts";
import { NODE_TEXT_COLUMNS, nodeText, type NodeTextRow } from "./node-text.ts";

/** Whether node static vectors can be searched with this embedder (same table, and the node table exists). */
export function nodeStaticTierReady(db: Database, embedder: StaticEmbedder): boolean {
  return staticTierState(db, embedder) === "ready" && hasTable(db, "node_static_vectors");
}

/**
 * Gives the nodes queued for the static tier their vectors and takes them off the queue; the
 * caller holds the write transaction. Nodes stay queued when the stored static vectors come from
 * another table (reembed rebuilds them). Returns how many were written.
 */
export function writeQueuedNodeStaticVectors(db: Database, embedder: StaticEmbedder): number {
  const nodes = db
    .query<NodeTextRow, []>(`SELECT ${NODE_TEXT_COLUMNS} FROM node_vector_queue q JOIN semantic_nodes n ON n.id = q.node_id WHERE q.tier = 'static'`)
    .all()
    .map(nodeText);
  const written = writeStaticRows(db, embedder, "nodes", nodes);
  if (written > 0) db.query("DELETE FROM node_vector_queue WHERE tier = 'static' AND node_id IN (SELECT value FROM json_each(?))").run(JSON.stringify(nodes.map((n) => n.key)));
  return written;
}

/**
 * Keeps node static vectors in step with every write of this store: before each transaction
 * commits, queued nodes get their vectors. The embedder is asked for only when something is
 * queued (loading the table costs a moment). Returns a function that stops it.
 */
export function maintainNodeStaticVectors(store: Store, embedder: () => StaticEmbedder | undefined): () => void {
  const db = store.db();
  const queued = db.query("SELECT 1 FROM node_vector_queue WHERE tier = 'static' LIMIT 1");
  return store.beforeCommit(() => {
    if (queued.get() === null) return;
    const active = embedder();
    if (active) writeQueuedNodeStaticVectors(db, active);
  });
}

/**
 * The nodes nearest a static query vector within a scope; with `pendingOnly`, only nodes waiting
 * for a model vector (the others are ranked by the model tier).
 */
export function knnStaticNodes(db: Database, vector: Float32Array, k: number, scope: string, pendingOnly: boolean): SimilarNode[] {
  const pending = pendingOnly ? "AND v.node_id IN (SELECT node_id FROM node_vector_queue WHERE tier = 'model')" : "";
  return db
    .query<SimilarNode, [Int8Array, number, string]>(
      `SELECT v.node_id AS nodeId, n.name, n.type, v.distance
       FROM node_static_vectors v JOIN semantic_nodes n ON n.id = v.node_id
       WHERE v.embedding MATCH vec_int8(?) AND v.k = ? AND v.scope = ? ${pending}
       ORDER BY v.distance`,
    )
    .all(toInt8Vector(vector), k, scope);
}
