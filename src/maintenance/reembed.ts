/**
 * Re-embedding after a model change (seed: vector space drift). Resetting drops both vec0 tables,
 * forgets the old model and queues every episode, in one transaction; node vectors are then
 * rewritten and the episode queue drained. Each step can be re-run after a crash: nodes without a
 * vector and queued episodes are exactly the work left.
 */
import type { Store } from "../engine/store.ts";
import { hasVectorTables } from "../engine/schema.ts";
import type { Embedder } from "../embed/embedder.ts";
import { startVectorFiller } from "../episodic/vectors.ts";
import { checkEmbeddingModelVersion, storeNodeEmbeddings } from "../semantic/node-vectors.ts";

export type ReembedReport = { reset: boolean; previousModel: string | undefined; model: string; nodes: number; episodes: number };
export type ReembedOptions = { force?: boolean; concurrency?: number; onProgress?: (done: number, remaining: number) => void };

const NODE_BATCH = 256;

function resetVectors(store: Store): void {
  const db = store.db();
  store.transaction(() => {
    db.run("DROP TABLE IF EXISTS semantic_embeddings");
    db.run("DROP TABLE IF EXISTS episode_vectors");
    db.run("DELETE FROM system_metadata WHERE key IN ('embedding_model_version', 'embedding_dims')");
    db.run("INSERT INTO episode_vector_queue (episode_id) SELECT id FROM episodes WHERE true ON CONFLICT DO NOTHING");
  });
}

function nodesWithoutVectors(store: Store): string[] {
  const db = store.dbRO();
  const sql = hasVectorTables(db)
    ? "SELECT id FROM semantic_nodes n WHERE NOT EXISTS (SELECT 1 FROM semantic_embeddings e WHERE e.node_id = n.id) ORDER BY id"
    : "SELECT id FROM semantic_nodes ORDER BY id";
  return db.query<{ id: string }, []>(sql).all().map((row) => row.id);
}

/** seed: reembedAllSemanticNodes (and episodes). Without drift and without force it only fills gaps. */
export async function reembedAll(store: Store, embedder: Embedder, options: ReembedOptions = {}): Promise<ReembedReport> {
  const check = checkEmbeddingModelVersion(store.dbRO(), embedder);
  const reset = check.drift || options.force === true;
  if (reset) resetVectors(store);
  const nodeIds = nodesWithoutVectors(store);
  for (let i = 0; i < nodeIds.length; i += NODE_BATCH) await storeNodeEmbeddings(store, embedder, nodeIds.slice(i, i + NODE_BATCH));
  const filler = startVectorFiller(store, embedder, { concurrency: options.concurrency, onProgress: options.onProgress });
  try {
    const episodes = await filler.waitForEmbeddings();
    return { reset, previousModel: check.previousModel, model: embedder.modelVersion, nodes: nodeIds.length, episodes };
  } finally {
    await filler.stop();
  }
}
