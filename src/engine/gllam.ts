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
import type { ProceduralKnowledge, ProceduralVersionRow, ProcedureInput } from "../memory/types.ts";
import { persistPddlTask, DEFAULT_PDDL_DOMAINS_DIR, type PersistedTask } from "../planning/persist.ts";
import type { PlanResult } from "../planning/planner.ts";
import { planFiles, type PlanFilesOptions } from "../planning/solve.ts";
import {
  buildTimeline,
  compileTimelinePddl,
  isOrderPossible,
  orderTimeline,
  resolveEvent,
  whatHappenedBetween,
  whichCameFirst,
  type FirstAnswer,
  type OrderAnswer,
  type TimelineOrder,
} from "../planning/timeline.ts";
import { readTimeline } from "../planning/timeline-reader.ts";
import { planRecipeChain, type RecipeChain, type RecipeChainOptions } from "../procedural/recipe-chain.ts";
import {
  getProceduresByTaxonomyPrefix,
  getProcedureVersions,
  getTopProcedures,
  markProcedureHelpful,
  retrieveProcedure,
  upsertProceduralKnowledge,
  type UpsertProcedureResult,
} from "../procedural/procedures.ts";
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
  /** Where generated PDDL domains are written (default bench/pddl_domains); null writes none. */
  pddlDomainsDir?: string | null;
};

/**
 * The engine facade: one SQLite file, three memory layers. The CLI and servers talk to this; the
 * layer modules below it talk to the Store.
 */
export class Gllam {
  readonly store: Store;
  readonly embedder: Embedder;
  readonly config: AgenticMemoryConfig;
  readonly pddlDomainsDir: string | null;
  #checkpointManager: WALCheckpointManager | undefined;

  private constructor(store: Store, embedder: Embedder, config: AgenticMemoryConfig, pddlDomainsDir: string | null) {
    this.store = store;
    this.embedder = embedder;
    this.config = config;
    this.pddlDomainsDir = pddlDomainsDir;
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
    return new Gllam(
      store,
      options.embedder ?? createLocalModelEmbedder(),
      options.config ?? defaultAgenticMemoryConfig(),
      options.pddlDomainsDir === undefined ? DEFAULT_PDDL_DOMAINS_DIR : options.pddlDomainsDir,
    );
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

  // ---------------------------------------------------------------- procedural and planning
  upsertProceduralKnowledge(procedure: ProcedureInput): UpsertProcedureResult {
    return upsertProceduralKnowledge(this.store, procedure);
  }

  markProcedureHelpful(taskType: string, helpful: boolean, scope?: string): ProceduralKnowledge {
    return markProcedureHelpful(this.store, taskType, helpful, scope);
  }

  /** The recipe for a task type; counts one more application. */
  retrieveProcedure(taskType: string, scope?: string): ProceduralKnowledge | undefined {
    return retrieveProcedure(this.store, taskType, scope);
  }

  getTopProcedures(limit = 10, scope?: string): ProceduralKnowledge[] {
    return getTopProcedures(this.store, limit, scope);
  }

  getProceduresByTaxonomyPrefix(prefix: string, scope?: string): ProceduralKnowledge[] {
    return getProceduresByTaxonomyPrefix(this.store, prefix, scope);
  }

  getProcedureVersions(taskType: string, scope?: string): ProceduralVersionRow[] {
    return getProcedureVersions(this.store, taskType, scope);
  }

  /** Solves two PDDL files (native, bfs, fast-downward or auto); the plan is validated by simulation. */
  planFiles(domainFile: string, problemFile: string, options?: PlanFilesOptions): Promise<PlanResult> {
    return planFiles(domainFile, problemFile, options);
  }

  /** The chain of recipes (procedures with PDDL actions) that reaches a goal such as ["(deployed caddy)"]. */
  planProcedures(goal: string[], options: RecipeChainOptions = {}): RecipeChain {
    return planRecipeChain(this.store, goal, { pddlDomainsDir: this.pddlDomainsDir, ...options });
  }

  /** Orders the scope's events consistently with every temporal link and valid time, or reports the contradiction; writes the PDDL. */
  orderTimeline(scope?: string): TimelineOrder & { files?: PersistedTask } {
    const { events, links } = readTimeline(this.store, scope);
    const timeline = buildTimeline(events, links);
    const files = this.pddlDomainsDir === null ? undefined : this.#persistTimeline(timeline, scope);
    return { ...orderTimeline(timeline), ...(files ? { files } : {}) };
  }

  #persistTimeline(timeline: ReturnType<typeof buildTimeline>, scope = "default"): PersistedTask {
    const { domain, problem } = compileTimelinePddl(timeline);
    return persistPddlTask(this.pddlDomainsDir!, `timeline ${scope}`, domain, problem);
  }

  /** Which of two events (id or name) started first, and the chain of links that forces it. */
  whichCameFirst(a: string, b: string, scope?: string): FirstAnswer {
    const { events, links } = readTimeline(this.store, scope);
    return whichCameFirst(events, links, resolveEvent(events, a), resolveEvent(events, b));
  }

  whatHappenedBetween(a: string, b: string, scope?: string): { necessarily: string[]; possibly: string[] } {
    const { events, links } = readTimeline(this.store, scope);
    return whatHappenedBetween(events, links, resolveEvent(events, a), resolveEvent(events, b));
  }

  /** Could the events have started in this order? A witness ordering, or the links it contradicts. */
  isOrderPossible(sequence: string[], scope?: string): OrderAnswer {
    const { events, links } = readTimeline(this.store, scope);
    return isOrderPossible(events, links, sequence.map((ref) => resolveEvent(events, ref)));
  }
}
