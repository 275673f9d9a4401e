import { GllamError } from "../engine/errors.ts";
import type { StaticEmbedder } from "./static/static-embedder.ts";

/**
 * Anything that turns texts into vectors. modelVersion names the vector space: vectors from two
 * versions are never compared (drift detection). dims is 0 until a lazily probed embedder knows it.
 */
export interface Embedder {
  readonly modelVersion: string;
  readonly dims: number;
  embed(texts: string[]): Promise<Float32Array[]>;
  /** How to build the same embedder in a worker thread; without it, work stays on the calling thread. */
  readonly spec?: EmbedderSpec;
}

/** The embedders of the two tiers (model vectors filled in the background, static ones at write); either may be absent. */
export type EmbeddingTiers = { model?: Embedder; static?: StaticEmbedder };

/** One text waiting for a vector: an episode (numeric key) or a node (string key). */
export type QueuedText = { key: string | number; scope: string; text: string };

/**
 * Texts waiting for a model vector (episode_vector_queue, node_vector_queue), as the vector filler
 * drains them: read in key order after a cursor; write stores vectors and dequeues, in one
 * transaction, skipping items forgotten or changed since they were read (they stay queued).
 */
export type VectorQueue = {
  read(after: string | number | undefined, limit: number): QueuedText[];
  write(embedder: Embedder, items: QueuedText[], vectors: Float32Array[]): void;
};

/** A serialisable recipe for an embedder, so the worker pool can build one per Bun Worker. */
export type EmbedderSpec =
  | { kind: "local" }
  /** The static embedder: the distilled table at path, else the bundled one. */
  | { kind: "static"; path?: string }
  | { kind: "http"; url: string; api?: "auto" | "openai" | "llama"; model?: string; apiKey?: string; timeoutMs?: number; batchSize?: number }
  /** A module whose default export is a function returning an Embedder (custom models, tests). */
  | { kind: "module"; path: string };

export async function embedOne(embedder: Embedder, text: string): Promise<Float32Array> {
  const [vector] = await embedder.embed([text]);
  if (!vector) throw new GllamError("E_EMBEDDER_RESPONSE", `${embedder.modelVersion} returned no vector`);
  return vector;
}

/** Refuses empty texts up front: some models return garbage for them instead of failing. */
export function assertEmbeddableTexts(texts: string[]): void {
  const empty = texts.findIndex((text) => text.trim().length === 0);
  if (empty >= 0) throw new GllamError("E_BAD_INPUT", `cannot embed an empty text (item ${empty})`);
}

/** Checks a batch of vectors: one per text, all of one finite dimension. */
export function checkVectors(vectors: Float32Array[], count: number, who: string): number {
  if (vectors.length !== count) {
    throw new GllamError("E_EMBEDDER_RESPONSE", `${who} returned ${vectors.length} vectors for ${count} texts`);
  }
  const dims = vectors[0]?.length ?? 0;
  for (const [i, vector] of vectors.entries()) {
    if (vector.length === 0 || vector.length !== dims) {
      throw new GllamError("E_EMBEDDER_RESPONSE", `${who} returned vector ${i} of length ${vector.length}, expected ${dims}`);
    }
    if (!allFinite(vector)) throw new GllamError("E_EMBEDDER_RESPONSE", `${who} returned a non-finite value in vector ${i}`);
  }
  return dims;
}

/** Whether every value is finite: x - x is 0 for a finite x, NaN for NaN and ±Infinity. A plain loop: `every(Number.isFinite)` took ~0.2 s per 5,000 vectors of 256 (the ingest's worker replies). */
function allFinite(vector: Float32Array): boolean {
  for (let i = 0; i < vector.length; i++) if (vector[i]! - vector[i]! !== 0) return false;
  return true;
}
