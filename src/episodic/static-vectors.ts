/**
 * The static tier of episode (and node) vectors: written in the same transaction as the episodes
 * or nodes (the static embedder is synchronous and fast), searched by vec0 KNN like the model
 * tier. Vectors are stored as int8 in episode_static_vectors and node_static_vectors.
 */
import type { Database } from "bun:sqlite";
import type { Store } from "../engine/store.ts";
import { readMetadata } from "../engine/metadata.ts";
import { ensureStaticVectorTable, hasTable, VECTOR_TIERS } from "../engine/schema.ts";
import type { QueuedText } from "../embed/embedder.ts";
import { toInt8Vector, type StaticEmbedder } from "../embed/static/static-embedder.ts";
import { knnCells, maintainCells, scopeHasCells, type AssignedCells } from "./episode-cells.ts";
import { scanInt8Partitions, scannable } from "./int8-scan.ts";
import { episodeEmbeddingText, type EpisodeHit } from "./vectors.ts";
import type { TurnNumbers } from "./lexicon/term-numbers.ts";

type EpisodeText = { id: number; scope: string; speaker: string; content: string };

/**
 * Static vectors computed ahead of the write (embed-ahead.ts), one per item, and when computed their
 * cells and the items' lexicon terms (kept for the episode lexicon's blocks: lexicon/term-numbers.ts).
 */
export type StaticAhead = { vectors: Float32Array[]; cells?: AssignedCells; terms?: TurnNumbers };

/** The items at these indexes of what was computed ahead, in that order. */
export function selectAhead(ahead: StaticAhead, indexes: number[]): StaticAhead {
  const cells = ahead.cells && { centroids: ahead.cells.centroids, cells: Int32Array.from(indexes, (i) => ahead.cells!.cells[i]!) };
  const terms = ahead.terms && { generation: ahead.terms.generation, numbers: indexes.map((i) => ahead.terms!.numbers[i]!) };
  return { vectors: indexes.map((i) => ahead.vectors[i]!), cells, terms };
}

/** Episodes embedded per transaction by fillStaticVectors. */
const FILL_BATCH = 5000;

/**
 * Embeds texts (unless their vectors were computed ahead) and stores their static vectors
 * (replacing the ones of nodes; episodes are new); the caller holds the write transaction. Returns
 * how many were stored: none when the stored static vectors come from another table.
 *
 * An episode of a scope that has cells (episode-cells.ts) is stored in its cell only: the cells
 * hold every vector of such a scope, and the scope's KNN, exact KNN, export and counts read them
 * (scopeStaticTable). The second copy cost a vec0 insert per turn (~10% of an ingest's CPU at 1M)
 * and 0.25 GB of the 1M file. The episodes stored before the scope got its cells keep their copy.
 */
export function writeStaticRows(db: Database, embedder: StaticEmbedder, kind: "nodes" | "episodes", items: QueuedText[], ahead?: StaticAhead): number {
  if (items.length === 0 || !ensureStaticVectorTable(db, embedder.modelVersion, embedder.dims)) return 0;
  const table = VECTOR_TIERS.static[kind];
  const column = kind === "nodes" ? "node_id" : "episode_id";
  const vectors = ahead?.vectors ?? embedder.embedSync(items.map((item) => item.text));
  const remove = kind === "nodes" ? db.query(`DELETE FROM ${table} WHERE ${column} = ?`) : undefined;
  const insert = db.query(`INSERT INTO ${table} (${column}, scope, embedding) VALUES (?, ?, vec_int8(?))`);
  const inCells = new Map<string, boolean>();
  const cellsOnly = (scope: string) => kind === "episodes" && (inCells.get(scope) ?? inCells.set(scope, scopeHasCells(db, "static", scope)).get(scope)!);
  items.forEach((item, i) => {
    if (cellsOnly(item.scope)) return;
    remove?.run(item.key);
    insert.run(item.key, item.scope, toInt8Vector(vectors[i]!));
  });
  if (kind === "episodes") maintainCells(db, "static", embedder.dims, items, vectors, ahead?.cells);
  return items.length;
}

/** The table holding every static vector of a scope's episodes: its cells once it has them, else episode_static_vectors. */
export function scopeStaticTable(db: Database, scope: string): string {
  const tables = VECTOR_TIERS.static;
  return scopeHasCells(db, "static", scope) ? tables.episodeCells : tables.episodes;
}

/** How many episodes have a static vector: those of scopes with cells are counted in their cells. */
export function countStaticEpisodeVectors(db: Database): number {
  const tables = VECTOR_TIERS.static;
  if (!hasTable(db, tables.episodes)) return 0;
  const count = (sql: string) => db.query<{ n: number }, []>(sql).get()!.n;
  const all = count(`SELECT count(*) AS n FROM ${tables.episodes}`);
  if (!hasTable(db, tables.episodeCells)) return all;
  return all - count(`SELECT count(*) AS n FROM ${tables.episodes} WHERE scope IN (SELECT scope FROM ${tables.cellScopes})`) + count(`SELECT count(*) AS n FROM ${tables.episodeCells}`);
}

/** Embeds (unless their vectors are given) and stores static vectors for new episodes; the caller holds the write transaction. */
export function writeStaticVectors(db: Database, embedder: StaticEmbedder, episodes: EpisodeText[], ahead?: StaticAhead): number {
  return writeStaticRows(db, embedder, "episodes", episodes.map((episode) => ({ key: episode.id, scope: episode.scope, text: episodeEmbeddingText(episode) })), ahead);
}

export type StaticTierState = "ready" | "empty" | "drift";

/** Whether the stored static vectors can be searched with this embedder. */
export function staticTierState(db: Database, embedder: StaticEmbedder): StaticTierState {
  const stored = readMetadata(db, "static_model_version");
  return stored === undefined ? "empty" : stored === embedder.modelVersion ? "ready" : "drift";
}

/**
 * The episodes nearest a static query vector within a scope: over the cells nearest the query in
 * a large scope (episode-cells.ts), else over every vector of the scope, scanned as the cells are
 * (int8-scan.ts: vec0's distances, ~25x less CPU per vector).
 */
export function knnStaticEpisodes(db: Database, vector: Float32Array, k: number, scope: string): EpisodeHit[] {
  const query = toInt8Vector(vector);
  return (
    knnCells(db, "static", vector, k, scope) ??
    (scannable(query.length) ? scanInt8Partitions(db, VECTOR_TIERS.static.episodes, [[scope]], query, k) : exactStaticEpisodes(db, vector, k, scope))
  );
}

/** The episodes nearest a static query vector within a scope, by vec0's brute force over every vector of the scope (the bench's reference). */
export function exactStaticEpisodes(db: Database, vector: Float32Array, k: number, scope: string): EpisodeHit[] {
  return db
    .query<EpisodeHit, [Int8Array, number, string]>(
      `SELECT episode_id AS episodeId, distance FROM ${scopeStaticTable(db, scope)} WHERE embedding MATCH vec_int8(?) AND k = ? AND scope = ? ORDER BY distance`,
    )
    .all(toInt8Vector(vector), k, scope);
}

/**
 * Gives every episode without a static vector one (episodes stored without the static tier, or by
 * another process during a rebuild); nothing when the stored ones come from another table.
 * Returns how many.
 */
export function fillStaticVectors(store: Store, embedder: StaticEmbedder): number {
  if (staticTierState(store.dbRO(), embedder) === "drift") return 0;
  const db = store.db();
  const read = store.dbRO().query<EpisodeText, [number, number]>("SELECT id, scope, speaker, content FROM episodes WHERE id > ? ORDER BY id LIMIT ?");
  let episodes = 0;
  for (let cursor = 0; ; ) {
    const batch = read.all(cursor, FILL_BATCH);
    if (batch.length === 0) return episodes;
    cursor = batch.at(-1)!.id;
    episodes += store.transaction(() => {
      if (readMetadata(db, "static_model_version") === undefined) return writeStaticVectors(db, embedder, batch);
      const has = (episode: EpisodeText) => db.query<{ n: number }, [number]>(`SELECT count(*) AS n FROM ${scopeStaticTable(db, episode.scope)} WHERE episode_id = ?`).get(episode.id)!.n > 0;
      return writeStaticVectors(db, embedder, batch.filter((episode) => !has(episode)));
    });
  }
}
