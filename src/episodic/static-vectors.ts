/**
 * The static tier of episode vectors: written in the same transaction as the episodes (the static
 * embedder is synchronous and fast), searched by vec0 KNN like the model tier. Vectors are stored
 * as int8 in episode_static_vectors.
 */
import type { Database } from "bun:sqlite";
import type { Store } from "../engine/store.ts";
import { readMetadata } from "../engine/metadata.ts";
import { dropStaticVectorTable, ensureStaticVectorTable } from "../engine/schema.ts";
import { toInt8Vector, type StaticEmbedder } from "../embed/static/static-embedder.ts";
import { episodeEmbeddingText, type EpisodeHit } from "./vectors.ts";

type EpisodeText = { id: number; scope: string; speaker: string; content: string };

/** Episodes re-embedded per transaction by fillStaticVectors. */
const FILL_BATCH = 5000;

/**
 * Embeds and stores static vectors for new episodes; the caller holds the write transaction.
 * Returns how many were stored: none when the stored static vectors come from another table.
 */
export function writeStaticVectors(db: Database, embedder: StaticEmbedder, episodes: EpisodeText[]): number {
  if (episodes.length === 0 || !ensureStaticVectorTable(db, embedder.modelVersion, embedder.dims)) return 0;
  const vectors = embedder.embedSync(episodes.map(episodeEmbeddingText));
  const insert = db.query("INSERT INTO episode_static_vectors (episode_id, scope, embedding) VALUES (?, ?, vec_int8(?))");
  episodes.forEach((episode, i) => insert.run(episode.id, episode.scope, toInt8Vector(vectors[i]!)));
  return episodes.length;
}

export type StaticTierState = "ready" | "empty" | "drift";

/** Whether the stored static vectors can be searched with this embedder. */
export function staticTierState(db: Database, embedder: StaticEmbedder): StaticTierState {
  const stored = readMetadata(db, "static_model_version");
  return stored === undefined ? "empty" : stored === embedder.modelVersion ? "ready" : "drift";
}

/** The episodes nearest a static query vector within a scope. */
export function knnStaticEpisodes(db: Database, vector: Float32Array, k: number, scope: string): EpisodeHit[] {
  return db
    .query<EpisodeHit, [Int8Array, number, string]>(
      "SELECT episode_id AS episodeId, distance FROM episode_static_vectors WHERE embedding MATCH vec_int8(?) AND k = ? AND scope = ? ORDER BY distance",
    )
    .all(toInt8Vector(vector), k, scope);
}

/**
 * Gives every episode a static vector: after a table change (drift) or with force, the tier is
 * rebuilt from scratch; otherwise only episodes without one are embedded. Returns how many.
 */
export function fillStaticVectors(store: Store, embedder: StaticEmbedder, options: { force?: boolean } = {}): { reset: boolean; episodes: number } {
  const db = store.db();
  const reset = options.force === true || staticTierState(store.dbRO(), embedder) === "drift";
  if (reset) store.transaction(() => dropStaticVectorTable(db));
  const read = store.dbRO().query<EpisodeText, [number, number]>("SELECT id, scope, speaker, content FROM episodes WHERE id > ? ORDER BY id LIMIT ?");
  let episodes = 0;
  for (let cursor = 0; ; ) {
    const batch = read.all(cursor, FILL_BATCH);
    if (batch.length === 0) return { reset, episodes };
    cursor = batch.at(-1)!.id;
    episodes += store.transaction(() => {
      const has = readMetadata(db, "static_model_version") === undefined ? undefined : db.query<{ n: number }, [number]>("SELECT count(*) AS n FROM episode_static_vectors WHERE episode_id = ?");
      return writeStaticVectors(db, embedder, has ? batch.filter((episode) => has.get(episode.id)!.n === 0) : batch);
    });
  }
}
