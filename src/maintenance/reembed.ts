/**
 * Re-embedding after a model change (seed: vector space drift). Resetting drops both vec0 tables,
 * forgets the old model and queues every episode, in one transaction; node vectors are then
 * rewritten and the episode queue drained. Each step can be re-run after a crash: nodes without a
 * vector and queued episodes are exactly the work left.
 */
import type { Store } from "../engine/store.ts";
import { hasVectorTables } from "../engine/schema.ts";
import type { Embedder } from "../embed/embedder.ts";
import { fillStaticVectors } from "../episodic/static-vectors.ts";
import { startVectorFiller } from "../episodic/vectors.ts";
import type { EmbeddingTiers } from "../retrieval/search-episodes.ts";
import { checkEmbeddingModelVersion, storeNodeEmbeddings } from "../semantic/node-vectors.ts";

export type ReembedReport = {
  reset: boolean;
  previousModel: string | undefined;
  model: string;
  nodes: number;
  episodes: number;
  /** The static tier: rebuilt (after a table change or with force), and episodes given a static vector. */
  staticReset: boolean;
  staticEpisodes: number;
};
export type ReembedProgress = { phase: "nodes" | "episodes"; done: number; total: number };
export type ReembedOptions = { force?: boolean; concurrency?: number; onProgress?: (progress: ReembedProgress) => void };

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

/** Node batches in flight at once, one per worker of a pool embedder; each batch is stored in its own transaction. */
async function embedNodes(store: Store, embedder: Embedder, nodeIds: string[], options: ReembedOptions): Promise<void> {
  let next = 0;
  let done = 0;
  const lane = async () => {
    while (next < nodeIds.length) {
      const batch = nodeIds.slice(next, (next += NODE_BATCH));
      await storeNodeEmbeddings(store, embedder, batch);
      done += batch.length;
      options.onProgress?.({ phase: "nodes", done, total: nodeIds.length });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 1) }, lane));
}

/**
 * seed: reembedAllSemanticNodes (and episodes, both tiers). Nodes take the model tier's vectors, or
 * the static ones when the static tier is the only one. Without drift and without force it only
 * fills gaps.
 */
export async function reembedAll(store: Store, tiers: EmbeddingTiers, options: ReembedOptions = {}): Promise<ReembedReport> {
  const fill = tiers.static ? fillStaticVectors(store, tiers.static, { force: options.force }) : { reset: false, episodes: 0 };
  const statics = { staticReset: fill.reset, staticEpisodes: fill.episodes };
  const embedder = tiers.model ?? tiers.static;
  if (!embedder) return { reset: false, previousModel: undefined, model: "none", nodes: 0, episodes: 0, ...statics };
  const check = checkEmbeddingModelVersion(store.dbRO(), embedder);
  const reset = check.drift || options.force === true;
  if (reset) resetVectors(store);
  const nodeIds = nodesWithoutVectors(store);
  await embedNodes(store, embedder, nodeIds, options);
  const report = { reset, previousModel: check.previousModel, model: embedder.modelVersion, nodes: nodeIds.length, episodes: 0, ...statics };
  // Without a model tier, episodes have static vectors only.
  if (!tiers.model) return report;
  const filler = startVectorFiller(store, embedder, {
    concurrency: options.concurrency,
    onProgress: (done, remaining) => options.onProgress?.({ phase: "episodes", done, total: done + remaining }),
  });
  try {
    return { ...report, episodes: await filler.waitForEmbeddings() };
  } finally {
    await filler.stop();
  }
}
