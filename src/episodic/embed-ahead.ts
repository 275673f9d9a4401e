/**
 * Static vectors on the second core: a worker (the embedder pool's, one worker, its own copy of the
 * static table) embeds the next chunk's episodes while the writer's thread writes this one. The
 * static embedding was ~12% of an ingest's CPU at 1M episodes, on the writer's thread; the writer
 * now only waits when the worker is behind. The vectors are the same (the same table and code).
 */
import type { StaticEmbedder } from "../embed/static/static-embedder.ts";
import { poolEmbedder } from "../embed/worker-pool.ts";
import type { ParsedBatch } from "./episodes.ts";
import { episodeEmbeddingText } from "./vectors.ts";

export type EmbedAhead = {
  /** Starts embedding the batches' episodes (in order: insertEpisodes' staticVectors); posted to the worker before it returns. */
  embed(batches: ParsedBatch[]): Promise<Float32Array[]>;
  /** Terminates the worker (its memory goes with it). */
  close(): Promise<void>;
};

/** A worker for the static embedder, or undefined when it cannot be rebuilt in one (no spec). */
export function startEmbedAhead(embedder: StaticEmbedder): EmbedAhead | undefined {
  // One message per call: the writer's thread, busy in synchronous SQLite, handles no reply (and
  // sends no next piece) until it has written its chunk, so smaller pieces would leave the worker idle.
  const pool = poolEmbedder(embedder, { workers: 1, chunkSize: Number.MAX_SAFE_INTEGER });
  if (!pool) return undefined;
  return {
    embed: (batches) => pool.embed(batches.flatMap((batch) => batch.episodes.map(episodeEmbeddingText))),
    close: () => pool.close(),
  };
}
