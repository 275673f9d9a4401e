/**
 * Re-embedding (seed: vector space drift). The embedder is probed before anything is touched.
 * After a model change, a new static table or with force, a tier is rebuilt beside the live one
 * and swapped in by one transaction (vector-rebuild.ts), so a failure leaves the old vectors and
 * recall as they were and a re-run resumes. Otherwise only gaps are filled: nodes and episodes
 * without a vector in a tier.
 */
import type { Store } from "../engine/store.ts";
import { embedOne, type Embedder, type EmbeddingTiers } from "../embed/embedder.ts";
import type { StaticEmbedder } from "../embed/static/static-embedder.ts";
import { fillStaticVectors, staticTierState } from "../episodic/static-vectors.ts";
import { startVectorFiller } from "../episodic/vectors.ts";
import { writeQueuedNodeStaticVectors } from "../semantic/node-static-vectors.ts";
import { checkEmbeddingModelVersion, queueNodesWithoutVectors, storeNodeEmbeddings } from "../semantic/node-vectors.ts";
import { keptVectorsError, pendingRebuild, rebuildVectorTier, type RebuildProgress } from "./vector-rebuild.ts";

export type ReembedReport = {
  /** The model tier was rebuilt (drift, force, or an interrupted rebuild resumed). */
  reset: boolean;
  /** An interrupted rebuild was resumed (of either tier). */
  resumed: boolean;
  previousModel: string | undefined;
  model: string;
  nodes: number;
  episodes: number;
  /** The static tier: rebuilt (after a table change or with force), and nodes and episodes given a static vector. */
  staticReset: boolean;
  staticNodes: number;
  staticEpisodes: number;
};
export type ReembedProgress = RebuildProgress;
export type ReembedOptions = { force?: boolean; concurrency?: number; onProgress?: (progress: ReembedProgress) => void };

const NODE_BATCH = 256;
const EPISODE_BATCH = 64;
/** The static embedder is in-process and fast: large batches, each one transaction. */
const STATIC_BATCH = 5000;

/** Node batches in flight at once, one per worker of a pool embedder; each batch is stored in its own transaction. */
async function embedNodes(store: Store, embedder: Embedder, nodeIds: string[], options: ReembedOptions): Promise<void> {
  let next = 0;
  let done = 0;
  const lane = async () => {
    while (next < nodeIds.length) {
      const batch = nodeIds.slice(next, (next += NODE_BATCH));
      await storeNodeEmbeddings(store, embedder, batch);
      done += batch.length;
      options.onProgress?.({ tier: "model", phase: "nodes", done, total: nodeIds.length });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 1) }, lane));
}

/** The model's dimension; an embedder that cannot answer (an unreachable server) fails here, before anything is written. */
async function probe(embedder: Embedder): Promise<number> {
  try {
    return (await embedOne(embedder, "probe")).length;
  } catch (error) {
    throw keptVectorsError(error, "nothing was changed");
  }
}

/** The static tier: rebuilt when its table changed (or forced, or interrupted), then every gap filled. */
async function reembedStatic(store: Store, embedder: StaticEmbedder, options: ReembedOptions) {
  const resume = pendingRebuild(store, "static", embedder.modelVersion);
  const reset = resume || options.force === true || staticTierState(store.dbRO(), embedder) === "drift";
  const rebuilt = reset
    ? await rebuildVectorTier(store, "static", embedder, embedder.dims, { episodes: true, batchSize: STATIC_BATCH, onProgress: options.onProgress })
    : { nodes: 0, episodes: 0, resumed: false };
  // Nodes first: any write transaction of an engine with a static tier drains their queue.
  const nodes =
    rebuilt.nodes +
    store.transaction(() => {
      queueNodesWithoutVectors(store.db(), "static");
      return writeQueuedNodeStaticVectors(store.db(), embedder);
    });
  const episodes = rebuilt.episodes + fillStaticVectors(store, embedder);
  return { staticReset: reset, staticNodes: nodes, staticEpisodes: episodes, resumed: rebuilt.resumed };
}

/**
 * seed: reembedAllSemanticNodes (and episodes, both tiers). Nodes take the model tier's vectors, or
 * the static ones when the static tier is the only one. Without drift, force or an interrupted
 * rebuild it only fills gaps.
 */
export async function reembedAll(store: Store, tiers: EmbeddingTiers, options: ReembedOptions = {}): Promise<ReembedReport> {
  const embedder = tiers.model ?? tiers.static;
  const dims = embedder ? await probe(embedder) : 0;
  const statics = tiers.static ? await reembedStatic(store, tiers.static, options) : { staticReset: false, staticNodes: 0, staticEpisodes: 0, resumed: false };
  const none = { reset: false, previousModel: undefined, model: "none", nodes: 0, episodes: 0 };
  if (!embedder) return { ...none, ...statics };
  const check = checkEmbeddingModelVersion(store.dbRO(), embedder);
  const resume = pendingRebuild(store, "model", embedder.modelVersion);
  const reset = resume || check.drift || options.force === true;
  const base = { reset, previousModel: check.previousModel, model: embedder.modelVersion, ...statics };
  let nodes = 0;
  let episodes = 0;
  if (reset) {
    const rebuilt = await rebuildVectorTier(store, "model", embedder, dims, {
      // Without a model tier, episodes have static vectors only.
      episodes: tiers.model !== undefined,
      batchSize: EPISODE_BATCH,
      concurrency: options.concurrency,
      onProgress: options.onProgress,
    });
    ({ nodes, episodes } = rebuilt);
    base.resumed ||= rebuilt.resumed;
  } else {
    store.transaction(() => queueNodesWithoutVectors(store.db(), "model"));
    const queued = store.dbRO().query<{ id: string }, []>("SELECT node_id AS id FROM node_vector_queue WHERE tier = 'model' ORDER BY node_id").all();
    await embedNodes(store, embedder, queued.map((row) => row.id), options);
    nodes = queued.length;
  }
  if (!tiers.model) return { ...base, nodes, episodes };
  // What the rebuild did not cover (written meanwhile), or every gap when nothing was rebuilt.
  const filler = startVectorFiller(store, embedder, {
    concurrency: options.concurrency,
    onProgress: (done, remaining) => options.onProgress?.({ tier: "model", phase: "episodes", done, total: done + remaining }),
  });
  try {
    return { ...base, nodes, episodes: episodes + (await filler.waitForEmbeddings()) };
  } finally {
    await filler.stop();
  }
}
