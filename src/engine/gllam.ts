import type { Database } from "bun:sqlite";
import { createLocalModelEmbedder } from "../embed/local-model.ts";
import type { Embedder } from "../embed/embedder.ts";
import { defaultAgenticMemoryConfig, type AgenticMemoryConfig } from "../config/prompts.ts";
import type { LinkInput, NodeInput, SemanticNode, SimilarNode } from "../memory/types.ts";
import { recall, type RecallOptions, type RecallResult } from "../retrieval/recall.ts";
import { activeLinks, addEdge, type ActiveLinkOptions, type AddEdgeResult, type DirectedLink } from "../semantic/links.ts";
import {
  checkEmbeddingModelVersion,
  searchSimilarNodes,
  storeNodeEmbedding,
  storeNodeEmbeddings,
  type EmbeddingModelCheck,
  type SimilarNodeOptions,
} from "../semantic/node-vectors.ts";
import { findNodesByName, readNode, upsertNode, type UpsertNodeResult } from "../semantic/nodes.ts";
import { seedSampleMemory, type SeedReport } from "../semantic/sample.ts";
import { initSchema, readSchemaVersion } from "./schema.ts";
import { GllamError } from "./errors.ts";
import { readStats, type StoreStats } from "./stats.ts";
import { Store, type StoreOptions } from "./store.ts";
import { checkpointWAL, startWALCheckpointManager, type CheckpointMode, type CheckpointResult, type WALCheckpointManager } from "./wal.ts";

export type GllamOptions = StoreOptions & {
  /** Default: the bundled Universal Sentence Encoder lite, loaded on first use. */
  embedder?: Embedder;
  /** Agentic memory configuration; default: config/agentic_memory_prompts.json as shipped. */
  config?: AgenticMemoryConfig;
};

/**
 * The engine facade: one SQLite file, three memory layers. The CLI and servers talk to this; the
 * layer modules below it talk to the Store.
 */
export class Gllam {
  readonly store: Store;
  readonly embedder: Embedder;
  readonly config: AgenticMemoryConfig;
  #checkpointManager: WALCheckpointManager | undefined;

  private constructor(store: Store, embedder: Embedder, config: AgenticMemoryConfig) {
    this.store = store;
    this.embedder = embedder;
    this.config = config;
  }

  /** Opens (creating when allowed) and initialises the schema unless read-only. */
  static async open(path: string, options: GllamOptions = {}): Promise<Gllam> {
    const store = await Store.open(path, options);
    try {
      if (!store.readOnly) initSchema(store.db());
      else if (readSchemaVersion(store.dbRO()) === 0) throw new GllamError("E_NOT_FOUND", `${store.path} holds no GLLAM memory yet`);
    } catch (error) {
      store.close();
      throw error;
    }
    return new Gllam(store, options.embedder ?? createLocalModelEmbedder(), options.config ?? defaultAgenticMemoryConfig());
  }

  get path(): string {
    return this.store.path;
  }

  close(): void {
    this.#checkpointManager?.stop();
    this.store.close();
  }

  db(): Database {
    return this.store.db();
  }

  dbRO(): Database {
    return this.store.dbRO();
  }

  initSchema(): void {
    initSchema(this.store.db());
  }

  checkpointWAL(mode: CheckpointMode = "PASSIVE"): CheckpointResult {
    return checkpointWAL(this.store.db(), mode);
  }

  /** One manager per engine; starting again replaces the previous one. Stopped by close(). */
  startWALCheckpointManager(intervalMs: number): WALCheckpointManager {
    this.#checkpointManager?.stop();
    this.#checkpointManager = startWALCheckpointManager(this.store.db(), this.store.path, intervalMs);
    return this.#checkpointManager;
  }

  stats(): StoreStats {
    return readStats(this.store.dbRO(), this.store.path);
  }

  // ---------------------------------------------------------------- semantic
  upsertNode(node: NodeInput): UpsertNodeResult {
    return upsertNode(this.store, node);
  }

  getNode(id: string): SemanticNode | undefined {
    return readNode(this.store, id);
  }

  findNodesByName(name: string, scope?: string): SemanticNode[] {
    return findNodesByName(this.store, name, scope);
  }

  addEdge(link: LinkInput): AddEdgeResult {
    return addEdge(this.store, link);
  }

  activeLinks(nodeId: string, options?: ActiveLinkOptions): DirectedLink[] {
    return activeLinks(this.store, nodeId, options);
  }

  storeNodeEmbedding(nodeId: string): Promise<number> {
    return storeNodeEmbedding(this.store, this.embedder, nodeId);
  }

  storeNodeEmbeddings(nodeIds: string[]): Promise<number> {
    return storeNodeEmbeddings(this.store, this.embedder, nodeIds);
  }

  searchSimilarNodes(query: string, limit = 5, options?: SimilarNodeOptions): Promise<SimilarNode[]> {
    return searchSimilarNodes(this.store, this.embedder, query, limit, options);
  }

  checkEmbeddingModelVersion(): EmbeddingModelCheck {
    return checkEmbeddingModelVersion(this.store.dbRO(), this.embedder);
  }

  /** Writes the sample memory of the seed's walk-through (idempotent). */
  seedSampleMemory(): Promise<SeedReport> {
    return seedSampleMemory(this.store, this.embedder);
  }

  // ---------------------------------------------------------------- retrieval
  recall(query: string, options?: RecallOptions): Promise<RecallResult> {
    return recall(this.store, this.embedder, query, options);
  }
}
