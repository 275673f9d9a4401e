/**
 * Model vectors, written off the write path: the queues (node_vector_queue, episode_vector_queue)
 * hold nodes and episodes without a model vector; processUnembeddedBatch embeds some episodes and
 * stores them; the background filler keeps one batch per worker in flight until both are empty.
 */
import type { Database } from "bun:sqlite";
import type { Store } from "../engine/store.ts";
import { hasVectorTables } from "../engine/schema.ts";
import type { Embedder, QueuedText, VectorQueue } from "../embed/embedder.ts";
import { claimVectorSpace, nodeVectorQueue } from "../semantic/node-vectors.ts";
import { knnCells, maintainCells } from "./episode-cells.ts";

/** Long texts are embedded by their opening: it carries the topic, and model cost grows with length. */
export const MAX_EMBED_CHARS = 2000;

type QueuedEpisode = { id: number; scope: string; speaker: string; content: string };

/** What an episode is embedded as: who said it, then what was said. */
export function episodeEmbeddingText(episode: { speaker: string; content: string }): string {
  const text = episode.speaker ? `${episode.speaker}: ${episode.content}` : episode.content;
  return text.length > MAX_EMBED_CHARS ? text.slice(0, MAX_EMBED_CHARS) : text;
}

function readQueue(db: Database, afterId: number, limit: number): QueuedEpisode[] {
  return db
    .query<QueuedEpisode, [number, number]>(
      `SELECT e.id, e.scope, e.speaker, e.content FROM episode_vector_queue q JOIN episodes e ON e.id = q.episode_id
       WHERE q.episode_id > ? ORDER BY q.episode_id LIMIT ?`,
    )
    .all(afterId, limit);
}

export function countUnembedded(store: Store): number {
  return store.dbRO().query<{ n: number }, []>("SELECT count(*) AS n FROM episode_vector_queue").get()!.n;
}

/**
 * Stores vectors for episodes still queued and takes them off the queue, in one transaction; an
 * episode forgotten (or embedded by another process) since it was read is skipped.
 */
export function writeEpisodeVectors(store: Store, embedder: Embedder, episodes: { id: number; scope: string }[], vectors: Float32Array[]): void {
  if (episodes.length === 0) return;
  const db = store.db();
  store.transaction(() => {
    claimVectorSpace(db, embedder, vectors[0]!.length);
    const dequeue = db.query<{ id: number }, [number]>("DELETE FROM episode_vector_queue WHERE episode_id = ? RETURNING episode_id AS id");
    const remove = db.query("DELETE FROM episode_vectors WHERE episode_id = ?");
    const insert = db.query("INSERT INTO episode_vectors (episode_id, scope, embedding) VALUES (?, ?, ?)");
    const stored = episodes.flatMap((episode, i) => {
      if (!dequeue.get(episode.id)) return [];
      remove.run(episode.id);
      insert.run(episode.id, episode.scope, vectors[i]!);
      return [{ key: episode.id, scope: episode.scope, vector: vectors[i]! }];
    });
    maintainCells(db, "model", vectors[0]!.length, stored, stored.map((item) => item.vector));
  });
}

/** Episodes waiting for a model vector, for the vector filler (after a cursor, in id order). */
export function episodeVectorQueue(store: Store): VectorQueue {
  return {
    read: (after, limit) =>
      readQueue(store.dbRO(), after === undefined ? 0 : Number(after), limit).map((episode) => ({ key: episode.id, scope: episode.scope, text: episodeEmbeddingText(episode) })),
    write: (embedder, items, vectors) =>
      writeEpisodeVectors(
        store,
        embedder,
        items.map((item) => ({ id: Number(item.key), scope: item.scope })),
        vectors,
      ),
  };
}

/** Embeds up to n queued episodes (oldest first, after a cursor) and stores them; returns the episodes done. */
export async function processUnembeddedBatch(store: Store, embedder: Embedder, n: number, afterId = 0): Promise<QueuedEpisode[]> {
  const episodes = readQueue(store.dbRO(), afterId, n);
  if (episodes.length === 0) return [];
  const vectors = await embedder.embed(episodes.map(episodeEmbeddingText));
  writeEpisodeVectors(store, embedder, episodes, vectors);
  return episodes;
}

export type VectorFillerOptions = {
  /** Batches in flight at once (one per worker keeps every worker busy). */
  concurrency?: number;
  batchSize?: number;
  /** How often an idle filler looks for new nodes and episodes. */
  intervalMs?: number;
  onProgress?: (done: number, remaining: number) => void;
  onError?: (error: unknown) => void;
};

export type VectorFiller = {
  /** Resolves when both queues are empty (and nothing is in flight); rejects with the first failure. */
  waitForEmbeddings(): Promise<number>;
  stop(): Promise<void>;
  readonly embedded: number;
};

/** Where the filler is: which queue (nodes first, then episodes) and the last key read from it. */
type Cursor = { queue: number; after: string | number | undefined };

/**
 * The background half of the embedding worker pool: keeps `concurrency` batches in flight over
 * the node queue, then the episode queue; wakes every intervalMs when idle. A failed batch stays
 * queued and is retried on the next wake.
 */
export function startVectorFiller(store: Store, embedder: Embedder, options: VectorFillerOptions = {}): VectorFiller {
  const queues = [nodeVectorQueue(store), episodeVectorQueue(store)];
  const concurrency = options.concurrency ?? 2;
  const batchSize = options.batchSize ?? 64;
  const intervalMs = options.intervalMs ?? 1000;
  let cursor: Cursor = { queue: 0, after: undefined };
  let inFlight = 0;
  let embedded = 0;
  let stopped = false;
  let failure: unknown;
  let waiters: { resolve(n: number): void; reject(error: unknown): void }[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;

  const idle = () => inFlight === 0;
  const remaining = () => countUnembedded(store) + store.dbRO().query<{ n: number }, []>("SELECT count(*) AS n FROM node_vector_queue WHERE tier = 'model'").get()!.n;
  function notify(): void {
    if (!idle()) return;
    const list = waiters;
    waiters = [];
    for (const waiter of list) failure === undefined ? waiter.resolve(embedded) : waiter.reject(failure);
    failure = undefined;
  }

  /** The next batch after the cursor, moving on to the next queue when one is exhausted. */
  function nextBatch(): { queue: VectorQueue; items: QueuedText[] } | undefined {
    while (cursor.queue < queues.length) {
      const queue = queues[cursor.queue]!;
      const items = queue.read(cursor.after, batchSize);
      if (items.length > 0) {
        cursor = { queue: cursor.queue, after: items.at(-1)!.key };
        return { queue, items };
      }
      cursor = { queue: cursor.queue + 1, after: undefined };
    }
    return undefined;
  }

  function pump(): void {
    if (stopped) return;
    while (inFlight < concurrency) {
      const batch = nextBatch();
      if (!batch) break;
      inFlight++;
      embedder
        .embed(batch.items.map((item) => item.text))
        .then((vectors) => {
          if (stopped) return;
          batch.queue.write(embedder, batch.items, vectors);
          embedded += batch.items.length;
          options.onProgress?.(embedded, remaining());
        })
        .catch((error) => {
          failure ??= error;
          options.onError?.(error);
        })
        .finally(() => {
          inFlight--;
          if (failure === undefined) pump();
          notify();
        });
    }
    if (idle()) {
      // Nothing left after the cursor: start over next time (new rows, or batches that failed).
      cursor = { queue: 0, after: undefined };
      notify();
      timer = setTimeout(pump, intervalMs);
      timer.unref?.();
    }
  }

  pump();
  return {
    get embedded() {
      return embedded;
    },
    waitForEmbeddings(): Promise<number> {
      if (timer) clearTimeout(timer);
      return new Promise((resolve, reject) => {
        waiters.push({ resolve, reject });
        if (idle()) {
          cursor = { queue: 0, after: undefined };
          pump();
        }
      });
    },
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      while (!idle()) await Bun.sleep(5);
    },
  };
}

export type EpisodeHit = { episodeId: number; distance: number };

/**
 * The episodes nearest a model query vector within a scope: over the cells nearest the query in a
 * large scope (episode-cells.ts), else by brute force (vec0 KNN, scope as partition key).
 */
export function knnEpisodes(db: Database, vector: Float32Array, k: number, scope: string): EpisodeHit[] {
  if (!hasVectorTables(db)) return [];
  return knnCells(db, "model", vector, k, scope) ?? exactEpisodes(db, vector, k, scope);
}

/** Brute-force KNN over a scope's model vectors (the exact answer the cells approximate). */
export function exactEpisodes(db: Database, vector: Float32Array, k: number, scope: string): EpisodeHit[] {
  return db
    .query<EpisodeHit, [Float32Array, number, string]>(
      "SELECT episode_id AS episodeId, distance FROM episode_vectors WHERE embedding MATCH ? AND k = ? AND scope = ? ORDER BY distance",
    )
    .all(vector, k, scope);
}

