/**
 * Rebuilding one tier's vectors (a new model, another static table, or `reembed --force`) without
 * ever leaving the file without them: the new vectors are staged beside the live ones
 * (node_vector_staging, episode_vector_staging), a `reembed` maintenance job records the rebuild,
 * and one transaction at the end swaps them in with the new model version. A failure or a crash
 * before the swap leaves the live vectors, their model version and search as they were; running
 * the rebuild again with the same embedder resumes where the staging stopped.
 */
import type { Database } from "bun:sqlite";
import type { Store } from "../engine/store.ts";
import { describeError, GllamError } from "../engine/errors.ts";
import { finishJob, listRunningJobs, saveJobState, startJob } from "../engine/jobs.ts";
import { replaceVectorTier, VECTOR_TIERS, type VectorTier } from "../engine/schema.ts";
import type { Embedder, QueuedText } from "../embed/embedder.ts";
import { toInt8Vector } from "../embed/static/static-embedder.ts";
import type { MaintenanceJobRow } from "../memory/types.ts";
import { buildLargeScopeCells } from "../episodic/episode-cells.ts";
import { episodeEmbeddingText } from "../episodic/vectors.ts";
import { NODE_TEXT_COLUMNS, nodeText, type NodeTextRow } from "../semantic/node-text.ts";

/**
 * Where a rebuild is: texts embedded and staged (nodes, then episodes), then the swap, one
 * transaction that may take a minute at a million episodes (done 0 of 1 as it starts).
 */
export type RebuildProgress = { tier: VectorTier; phase: "nodes" | "episodes" | "swap"; done: number; total: number };

export type RebuildOptions = {
  /** Whether the tier holds episode vectors too (the model tier of a static-only engine holds nodes only). */
  episodes: boolean;
  /** Texts embedded per batch; each batch is staged in its own transaction. */
  batchSize: number;
  /** Batches in flight at once. */
  concurrency?: number;
  onProgress?: (progress: RebuildProgress) => void;
};

export type RebuildReport = { nodes: number; episodes: number; resumed: boolean };

const JOB_KIND = "reembed";
type RebuildParams = { tier: VectorTier; model: string; dims: number; episodes: boolean };

const sameRebuild = (job: MaintenanceJobRow, params: RebuildParams) =>
  job.params.model === params.model && job.params.dims === params.dims && job.params.episodes === params.episodes;

function clearStaging(db: Database, tier: VectorTier): void {
  db.query("DELETE FROM node_vector_staging WHERE tier = ?").run(tier);
  db.query("DELETE FROM episode_vector_staging WHERE tier = ?").run(tier);
}

const runningRebuilds = (db: Database, tier: VectorTier) => listRunningJobs(db, JOB_KIND).filter((job) => job.params.tier === tier);

/**
 * Whether an interrupted rebuild of this tier by this model is waiting to be resumed. One by
 * another model can never finish: it is given up and its staged vectors dropped.
 */
export function pendingRebuild(store: Store, tier: VectorTier, model: string): boolean {
  const jobs = runningRebuilds(store.dbRO(), tier);
  const stale = jobs.filter((job) => job.params.model !== model);
  if (stale.length > 0) {
    store.transaction(() => {
      clearStaging(store.db(), tier);
      for (const job of stale) finishJob(store.db(), job.id, "failed", { ...job.state, reason: `superseded by a rebuild with ${model}` });
    });
  }
  return jobs.length > stale.length;
}

/** The running job for these params (resumed), or a new one with empty staging. */
function claimJob(store: Store, params: RebuildParams): { job: MaintenanceJobRow; resumed: boolean } {
  return store.transaction(() => {
    const db = store.db();
    const running = runningRebuilds(db, params.tier);
    const same = running.find((job) => sameRebuild(job, params));
    if (same) return { job: same, resumed: true };
    clearStaging(db, params.tier);
    for (const job of running) finishJob(db, job.id, "failed", { ...job.state, reason: "superseded by another rebuild" });
    return { job: startJob(db, { kind: JOB_KIND, scope: "default", params }), resumed: false };
  });
}

/** What is staged: nodes or episodes, how to find the ones not staged yet, and how to stage one. */
type Kind = {
  phase: "nodes" | "episodes";
  staging: string;
  firstKey: string | number;
  count(db: Database): number;
  unstaged(db: Database, tier: VectorTier, after: string | number, limit: number): QueuedText[];
  stager(db: Database, tier: VectorTier): (item: QueuedText, vector: Float32Array | Int8Array, now: number) => void;
};

const NODES: Kind = {
  phase: "nodes",
  staging: "node_vector_staging",
  firstKey: "",
  count: (db) => db.query<{ n: number }, []>("SELECT count(*) AS n FROM semantic_nodes").get()!.n,
  unstaged: (db, tier, after, limit) =>
    db
      .query<NodeTextRow, [string, string, number]>(
        `SELECT ${NODE_TEXT_COLUMNS} FROM semantic_nodes n
         WHERE n.id > ?2 AND NOT EXISTS (SELECT 1 FROM node_vector_staging s WHERE s.tier = ?1 AND s.node_id = n.id) ORDER BY n.id LIMIT ?3`,
      )
      .all(tier, String(after), limit)
      .map(nodeText),
  stager: (db, tier) => {
    // Only nodes that still exist: one forgotten while its batch was embedded leaves nothing behind.
    const insert = db.query(
      `INSERT INTO node_vector_staging (tier, node_id, scope, embedding, staged_at) SELECT ?1, ?2, ?3, ?4, ?5
       WHERE EXISTS (SELECT 1 FROM semantic_nodes WHERE id = ?2) ON CONFLICT DO UPDATE SET embedding = excluded.embedding, staged_at = excluded.staged_at`,
    );
    return (item, vector, now) => insert.run(tier, item.key, item.scope, vector, now);
  },
};

const EPISODES: Kind = {
  phase: "episodes",
  staging: "episode_vector_staging",
  firstKey: 0,
  count: (db) => db.query<{ n: number }, []>("SELECT count(*) AS n FROM episodes").get()!.n,
  unstaged: (db, tier, after, limit) =>
    db
      .query<{ id: number; scope: string; speaker: string; content: string }, [string, number, number]>(
        `SELECT e.id, e.scope, e.speaker, e.content FROM episodes e
         WHERE e.id > ?2 AND NOT EXISTS (SELECT 1 FROM episode_vector_staging s WHERE s.tier = ?1 AND s.episode_id = e.id) ORDER BY e.id LIMIT ?3`,
      )
      .all(tier, Number(after), limit)
      .map((episode) => ({ key: episode.id, scope: episode.scope, text: episodeEmbeddingText(episode) })),
  stager: (db, tier) => {
    const insert = db.query(
      `INSERT INTO episode_vector_staging (tier, episode_id, scope, embedding) SELECT ?1, ?2, ?3, ?4
       WHERE EXISTS (SELECT 1 FROM episodes WHERE id = ?2) ON CONFLICT DO UPDATE SET embedding = excluded.embedding`,
    );
    return (item, vector) => insert.run(tier, item.key, item.scope, vector);
  },
};

/** The bytes the tier's vec0 column takes. */
const encode = (tier: VectorTier, vector: Float32Array) => (tier === "static" ? toInt8Vector(vector) : vector);

/** Embeds every item of a kind not staged yet, batch by batch, each batch staged (with the job's progress) in one transaction. */
async function stage(store: Store, job: MaintenanceJobRow, kind: Kind, embedder: Embedder, options: RebuildOptions & { tier: VectorTier }): Promise<number> {
  const { tier } = options;
  const db = store.db();
  const total = kind.count(store.dbRO());
  const put = kind.stager(db, tier);
  let done = store.dbRO().query<{ n: number }, [string]>(`SELECT count(*) AS n FROM ${kind.staging} WHERE tier = ?`).get(tier)!.n;
  let cursor = kind.firstKey;
  let written = 0;
  const lane = async () => {
    for (;;) {
      const batch = kind.unstaged(store.dbRO(), tier, cursor, options.batchSize);
      if (batch.length === 0) return;
      cursor = batch.at(-1)!.key;
      const vectors = await embedder.embed(batch.map((item) => item.text));
      const now = Date.now();
      done += batch.length;
      store.transaction(() => {
        batch.forEach((item, i) => put(item, encode(tier, vectors[i]!), now));
        saveJobState(db, job.id, { ...job.state, [kind.phase]: done });
      });
      written += batch.length;
      options.onProgress?.({ tier, phase: kind.phase, done, total });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 1) }, lane));
  return written;
}

/**
 * The swap, in one transaction: the tier's tables are replaced by the staged vectors of the nodes
 * and episodes that still exist (a node changed since it was staged keeps no vector), the model
 * version recorded, whatever has no vector now queued for the filler (model tier) or the next
 * commit (static nodes), and the large scopes' cells built again.
 */
function swap(store: Store, job: MaintenanceJobRow, params: RebuildParams): void {
  const db = store.db();
  const tables = VECTOR_TIERS[params.tier];
  const staged = tables.sqlVector.replace("?", "s.embedding");
  // The old vectors hold nothing forgotten (forget deletes them everywhere): freeing their pages
  // need not cost a write of zeros each, as secure_delete=ON would.
  db.run("PRAGMA secure_delete = FAST");
  try {
    store.transaction(() => {
      replaceVectorTier(db, params.tier, params.model, params.dims);
      db.query(
        `INSERT INTO ${tables.nodes} (node_id, scope, embedding) SELECT n.id, n.scope, ${staged}
         FROM node_vector_staging s JOIN semantic_nodes n ON n.id = s.node_id WHERE s.tier = ? AND s.staged_at > n.updated_at`,
      ).run(params.tier);
      db.query("DELETE FROM node_vector_queue WHERE tier = ?").run(params.tier);
      db.query(
        `INSERT INTO node_vector_queue (tier, node_id) SELECT ?1, n.id FROM semantic_nodes n
         WHERE NOT EXISTS (SELECT 1 FROM node_vector_staging s WHERE s.tier = ?1 AND s.node_id = n.id AND s.staged_at > n.updated_at)`,
      ).run(params.tier);
      if (params.episodes) {
        db.query(
          `INSERT INTO ${tables.episodes} (episode_id, scope, embedding) SELECT e.id, e.scope, ${staged}
           FROM episode_vector_staging s JOIN episodes e ON e.id = s.episode_id WHERE s.tier = ?`,
        ).run(params.tier);
      }
      if (params.tier === "model") {
        // Every episode without a new vector waits for one (all of them when the tier holds nodes only).
        db.run("DELETE FROM episode_vector_queue");
        db.query(
          `INSERT INTO episode_vector_queue (episode_id) SELECT id FROM episodes e
           WHERE NOT EXISTS (SELECT 1 FROM episode_vector_staging s WHERE s.tier = 'model' AND s.episode_id = e.id)`,
        ).run();
      }
      // The dropped cells, built again now for the large scopes (after the queue, which they count).
      if (params.episodes) buildLargeScopeCells(db, params.tier, params.dims);
      clearStaging(db, params.tier);
      finishJob(db, job.id, "done", job.state);
    });
  } finally {
    db.run("PRAGMA secure_delete = ON");
  }
}

/** Rebuilds a tier with `embedder` (whose vectors have `dims`), resuming an interrupted rebuild by the same embedder. */
export async function rebuildVectorTier(store: Store, tier: VectorTier, embedder: Embedder, dims: number, options: RebuildOptions): Promise<RebuildReport> {
  const params: RebuildParams = { tier, model: embedder.modelVersion, dims, episodes: options.episodes };
  const { job, resumed } = claimJob(store, params);
  try {
    const nodes = await stage(store, job, NODES, embedder, { ...options, tier });
    const episodes = options.episodes ? await stage(store, job, EPISODES, embedder, { ...options, tier }) : 0;
    options.onProgress?.({ tier, phase: "swap", done: 0, total: 1 });
    swap(store, job, params);
    return { nodes, episodes, resumed };
  } catch (error) {
    throw keptVectorsError(error, `the stored ${tier} vectors and their model are unchanged; run \`gllam reembed\` again to resume`);
  }
}

/** A re-embedding failure, with its code, saying what was kept. */
export function keptVectorsError(error: unknown, kept: string): GllamError {
  if (error instanceof GllamError) return new GllamError(error.code, `${error.message} (${kept})`, { cause: error });
  return new GllamError("E_EMBEDDER", `re-embedding failed: ${describeError(error)} (${kept})`, { cause: error });
}
