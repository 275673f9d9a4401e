import type { Database } from "bun:sqlite";
import { createLocalModelEmbedder } from "../embed/local-model.ts";
import type { Embedder, EmbeddingTiers } from "../embed/embedder.ts";
import { defaultAgenticMemoryConfig, type AgenticMemoryConfig } from "../config/prompts.ts";
import { LlmLayer } from "../llm/client.ts";
import { createLlmCaveatSummariser, createLlmCategorizer, createLlmFallacyJudge } from "../llm/judges.ts";
import {
  determineDocumentIngestionStrategy,
  getIngestionSteeringPrompt,
  registerCustomDocumentTypeRule,
  registerRepositoryContextDirective,
  type IngestionStrategy,
  type RepositoryContextDirective,
} from "../config/registries.ts";
import { extractSessions, type ExtractOptions, type ExtractReport } from "../extraction/extract.ts";
import { importFacts, type FactImportReport } from "../extraction/import-facts.ts";
import type { LlmSettings } from "../llm/endpoints.ts";
import type {
  EpisodeInput,
  EpisodeRow,
  EpisodicSummaryInput,
  EpisodicSummaryRow,
  LinkInput,
  NodeInput,
  SemanticNode,
  SessionInput,
  SimilarNode,
  SourceInput,
} from "../memory/types.ts";
import { recall, type RecallOptions, type RecallResult } from "../retrieval/recall.ts";
import { prewarmRecall, type PrewarmReport } from "../retrieval/prewarm.ts";
import { routeAndAssemble, type AssembledContext, type RouteOptions } from "../router/route.ts";
import { createLlmIntentClassifier } from "../router/intent-llm.ts";
import { askFromContext, type AskResult } from "../router/ask.ts";
import { searchEpisodes, type EpisodeSearchResult, type SearchEpisodesOptions } from "../retrieval/search-episodes.ts";
import { ensureStaticTable, loadStaticEmbedder, locateStaticTable } from "../embed/static/bundled-table.ts";
import type { StaticEmbedder } from "../embed/static/static-embedder.ts";
import { poolEmbedder } from "../embed/worker-pool.ts";
import {
  addEpisodes,
  getEpisodesInWindow,
  getRecentEpisodes,
  listSessions,
  saveSession,
  type AddEpisodesOptions,
  type AddEpisodesResult,
  type SessionSummary,
} from "../episodic/episodes.ts";
import { INGEST_WAL_BYTES, ingestFiles, type IngestFileOptions, type IngestProgress, type IngestReport } from "../episodic/ingest.ts";
import { relinkScopeMentions } from "../episodic/mentions.ts";
import { getEpisodicSummaries, saveEpisodicSummary } from "../episodic/summaries.ts";
import { countUnembedded, processUnembeddedBatch, startVectorFiller, type VectorFiller, type VectorFillerOptions } from "../episodic/vectors.ts";
import { reembedAll, type ReembedOptions, type ReembedReport } from "../maintenance/reembed.ts";
import { enterMemorySleepCycle, readLastSleepCycle, type LastSleepCycle, type SleepCycleOptions, type SleepCycleReport } from "../maintenance/sleep-cycle.ts";
import { simulateRandomTraceTests, type TraceTestOptions, type TraceTestReport } from "../maintenance/trace-tests.ts";
import { detectTaxonomyCycles, getNodesByTaxonomyPrefix, wouldCreateTaxonomyCycle, type CycleCheck, type TaxonomyPrefixOptions } from "../semantic/taxonomy.ts";
import type { TaxonomyCycleReport } from "../semantic/taxonomy-cycles.ts";
import { processUncategorizedBatch, type Categorizer, type UncategorizedBatchOptions, type UncategorizedBatchReport } from "../semantic/taxonomy-categorize.ts";
import {
  consolidateTaxonomyBranch,
  resumeTaxonomyConsolidations,
  type ConsolidationOptions,
  type ConsolidationReport,
} from "../semantic/taxonomy-consolidate.ts";
import { discoverTaxonomyMergeCandidates, type MergeDiscoveryOptions, type TaxonomyMergeCandidate } from "../semantic/taxonomy-merge.ts";
import { activeLinks, type ActiveLinkOptions, type DirectedLink } from "../semantic/links.ts";
import { addEdge, type AddEdgeResult } from "../semantic/add-edge.ts";
import { batchCompactHubCaveats, compactNodeCaveats, type CaveatCompaction, type CaveatSummariser } from "../semantic/caveats.ts";
import { disambiguateEntityForSource, mergeNodes, resolveEntity, type Disambiguation, type EntityResolution, type MergeReport } from "../semantic/entities.ts";
import { describeFacts, type DescribedFact } from "../semantic/facts.ts";
import { askFallacyJudge, type FallacyJudge } from "../semantic/fallacies.ts";
import { forget, type ForgetReport, type ForgetTarget } from "../semantic/forget.ts";
import { asKnownAt, linkHistory, nodeHistory, type KnownAtOptions, type LinkVersion } from "../semantic/history.ts";
import { listContradictions, type ContradictionEntry } from "../semantic/contradictions.ts";
import { readNeighbourhood, type Neighbourhood } from "../semantic/neighbourhood.ts";
import { explainSourceTrust, type SourceTrust } from "../semantic/source-trust.ts";
import { countEpisodesByDay, type EpisodeDensity } from "../episodic/density.ts";
import { invalidateDependentCrossCuttingLinks, invalidateObsoleteEdge, type CascadeReport, type InvalidationResult } from "../semantic/invalidation.ts";
import { findMultiHopPath, type MultiHopPath, type PathOptions } from "../semantic/paths.ts";
import { semanticPolicy } from "../semantic/policy.ts";
import { resolveContradiction, type ContradictionResolution } from "../semantic/resolution.ts";
import { attributeContainerEntryToSource, upsertSource, type AttributedEntry, type UpsertSourceResult } from "../semantic/sources.ts";
import { computeTrustWeight, type TrustBreakdown, type TrustInput } from "../semantic/trust.ts";
import {
  checkEmbeddingModelVersion,
  embedNodeQuery,
  nearestNodes,
  searchSimilarNodes,
  storeNodeEmbeddings,
  type EmbeddingModelCheck,
  type SimilarNodeOptions,
} from "../semantic/node-vectors.ts";
import { ensureNodeNamed, findNearMissNodes, findNodesByName, readNode, upsertNode, type NearMiss, type UpsertNodeResult } from "../semantic/nodes.ts";
import { maintainNodeStaticVectors } from "../semantic/node-static-vectors.ts";
import { staticTierState, type StaticTierState } from "../episodic/static-vectors.ts";
import { seedSampleMemory, type SeedReport } from "../semantic/sample.ts";
import { lookUpName, nodeNamed, recordFact, type FactStatement, type NameLookup, type RecordedFact } from "../semantic/record-fact.ts";
import { rememberTurns, type TurnInput } from "../episodic/remember.ts";
import type { ProceduralKnowledge, ProceduralVersionRow, ProcedureInput } from "../memory/types.ts";
import { persistPddlTask, pddlDomainsDirFor, type PersistedTask } from "../planning/persist.ts";
import type { PlanResult } from "../planning/planner.ts";
import { planFiles, planTexts, type PddlTexts, type PlanFilesOptions } from "../planning/solve.ts";
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
import { parseScope } from "../memory/parse.ts";
import { readMetadata } from "../engine/metadata.ts";
import { version } from "../../package.json";
import { backupTo, type BackupReport } from "../maintenance/backup.ts";
import { runDoctor, type DoctorReport } from "../maintenance/doctor.ts";
import { exportMemory, type ExportReport } from "../maintenance/export.ts";
import { importMemory, type ImportReport } from "../maintenance/import.ts";
import { initSchema, readSchemaVersion, upgradeSchema } from "../engine/schema.ts";
import { GllamError } from "../engine/errors.ts";
import { readStats, type StoreStats } from "../engine/stats.ts";
import { Store, type BusyWaitOptions, type StoreOptions } from "../engine/store.ts";
import {
  checkpointWAL,
  startWALCheckpointManager,
  type CheckpointMode,
  type CheckpointResult,
  type WALCheckpointManager,
  type WALCheckpointOptions,
} from "../engine/wal.ts";

/** Cosine distance under which a new name's static vector means an existing node of its type (names, not prose: strict). */
const SAME_ENTITY_DISTANCE = 0.08;

/** A node's facts as `facts` returns them: described (now or at asOf), or as believed at knownAt. */
export type NodeFacts = { node: SemanticNode; asOf: number; knownAt?: number; facts: (DescribedFact | (DirectedLink & { otherId: string; otherName: string }))[] };

export type GllamOptions = StoreOptions & {
  /**
   * The model tier (episode vectors filled in the background) and node vectors. Default: the
   * bundled Universal Sentence Encoder lite, loaded on first use. Pass the static embedder itself
   * to have the static tier only.
   */
  embedder?: Embedder;
  /**
   * The static tier (episode vectors written at ingest). Default: the distilled table (built on
   * first use in a source checkout, carried by the compiled executable); null: no static tier.
   */
  staticEmbedder?: StaticEmbedder | null;
  /** Agentic memory configuration; default: config/agentic_memory_prompts.json as shipped. */
  config?: AgenticMemoryConfig;
  /**
   * Where generated PDDL domains are written; null writes none. Default `$GLLAM_PDDL_DOMAINS`, else
   * `<database file>.pddl/` beside the database (none for `:memory:`).
   */
  pddlDomainsDir?: string | null;
  /** Called on open when the stored vectors come from another model than the embedder (seed: vector space drift). */
  onEmbeddingDrift?: (check: EmbeddingModelCheck) => void;
  /** How long a write waits while another process writes (default 60 s), then E_BUSY. */
  busyTimeoutMs?: number;
  /** Called once by each write that has to wait for another process's write. */
  onBusyWait?: BusyWaitOptions["onWait"];
  /**
   * The LLM roles: a layer, or flags over the environment and the config's `llm` entry (the
   * default: the environment). Built on first use, so memory that never asks an LLM never reads it.
   */
  llm?: LlmLayer | LlmSettings;
};

/**
 * The engine facade: one SQLite file, three memory layers. The CLI and servers talk to this; the
 * layer modules below it talk to the Store.
 */
export class Gllam {
  readonly store: Store;
  /** Embeds nodes; it is also the model tier unless it is the static embedder. */
  readonly embedder: Embedder;
  /** Replaced (never mutated) by the register* calls. */
  config: AgenticMemoryConfig;
  readonly pddlDomainsDir: string | null;
  #static: StaticEmbedder | (() => StaticEmbedder) | undefined;
  /** The default static tier whose table is not built yet (see #ensureStaticTier). */
  #staticPending: boolean;
  #checkpointManager: WALCheckpointManager | undefined;
  #pool: { filler: VectorFiller; embedder: Embedder & { close?: () => void } } | undefined;
  #llm: LlmLayer | LlmSettings;

  private constructor(
    store: Store,
    embedder: Embedder,
    staticTier: StaticEmbedder | (() => StaticEmbedder) | undefined,
    staticPending: boolean,
    config: AgenticMemoryConfig,
    pddlDomainsDir: string | null,
    llm: LlmLayer | LlmSettings,
  ) {
    this.#llm = llm;
    this.store = store;
    this.embedder = embedder;
    this.#static = staticTier;
    this.#staticPending = staticPending;
    this.config = config;
    this.pddlDomainsDir = pddlDomainsDir;
  }

  /** Opens (creating when allowed) and initialises the schema unless read-only. */
  static async open(path: string, options: GllamOptions = {}): Promise<Gllam> {
    const store = await Store.open(path, options);
    try {
      store.setBusyWait({ timeoutMs: options.busyTimeoutMs, onWait: options.onBusyWait });
      // Through the Store's transaction, so opening waits for another process's write like any write does.
      if (!store.readOnly) upgradeSchema(store.db(), (fn) => store.transaction(fn));
      else if (readSchemaVersion(store.dbRO()) === 0) throw new GllamError("E_NOT_FOUND", `${store.path} holds no GLLAM memory yet`);
    } catch (error) {
      store.close();
      throw error;
    }
    // A table already at hand (compiled in, cached, or named) is used; otherwise it is distilled
    // only when something needs it (ingest, re-embedding, a file holding static vectors), so
    // commands that never touch episodes do not wait for a distillation.
    const located = options.staticEmbedder === undefined ? locateStaticTable() : undefined;
    const staticTier: StaticEmbedder | (() => StaticEmbedder) | undefined =
      options.staticEmbedder === undefined ? (located ? () => loadStaticEmbedder(located) : undefined) : (options.staticEmbedder ?? undefined);
    const gllam = new Gllam(
      store,
      options.embedder ?? createLocalModelEmbedder(),
      staticTier,
      options.staticEmbedder === undefined && !located,
      options.config ?? defaultAgenticMemoryConfig(),
      pddlDomainsDirFor(path, options.pddlDomainsDir),
      options.llm ?? {},
    );
    // Nodes get static vectors in the transaction that creates or renames them, whoever writes them.
    if (!store.readOnly) maintainNodeStaticVectors(store, () => gllam.staticEmbedder);
    if (options.onEmbeddingDrift) {
      const check = gllam.checkEmbeddingModelVersion();
      if (check.drift) options.onEmbeddingDrift(check);
    }
    return gllam;
  }

  /** Distils the default static table if it is not built yet (a source checkout's first ingest). */
  async #ensureStaticTier(): Promise<void> {
    if (!this.#staticPending) return;
    const path = await ensureStaticTable();
    this.#static = () => loadStaticEmbedder(path);
    this.#staticPending = false;
  }

  /** The tiers for a read: the static table is needed only if this file holds static vectors. */
  async #readTiers(): Promise<EmbeddingTiers> {
    if (this.#staticPending && readMetadata(this.store.dbRO(), "static_model_version") !== undefined) await this.#ensureStaticTier();
    return this.tiers;
  }

  /** The static tier's embedder (loaded on first use), if the static tier is on and its table built. */
  get staticEmbedder(): StaticEmbedder | undefined {
    if (typeof this.#static === "function") this.#static = this.#static();
    return this.#static;
  }

  /** The embedders of both tiers: no model tier when the static embedder is the only one. */
  get tiers(): EmbeddingTiers {
    const staticTier = this.staticEmbedder;
    return { model: this.embedder.modelVersion === staticTier?.modelVersion ? undefined : this.embedder, static: staticTier };
  }

  /** The LLM roles (either may be unset: the features then use their rule-based fallbacks and say so). */
  get llm(): LlmLayer {
    if (!(this.#llm instanceof LlmLayer)) this.#llm = LlmLayer.fromSettings(this.#llm, this.config.llm);
    return this.#llm;
  }

  get path(): string {
    return this.store.path;
  }

  /** Stops background work (vectors in flight are abandoned and stay queued) and closes the file. */
  close(): void {
    this.#checkpointManager?.stop();
    this.#stopPool();
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

  /**
   * One manager per engine; starting again replaces the previous one. Stopped by close(). With
   * checkpoints left to a replicator (GLLAM_CHECKPOINTS=external) it checkpoints nothing: its tick
   * returns undefined, so `gllam serve` and the MCP server never race the replicator.
   */
  startWALCheckpointManager(intervalMs: number, options?: WALCheckpointOptions): WALCheckpointManager {
    this.#checkpointManager?.stop();
    this.#checkpointManager = this.store.externalCheckpoints
      ? { stop: () => {}, tick: () => undefined, runs: 0, last: undefined }
      : startWALCheckpointManager(this.store.db(), this.store.path, intervalMs, options);
    return this.#checkpointManager;
  }

  stats(): StoreStats {
    return readStats(this.store.dbRO(), this.store.path);
  }

  // ---------------------------------------------------------------- the file as a whole (issue 12)
  /**
   * Writes the memory of a scope (every scope without one) as export JSONL through `write`, from
   * one snapshot, in table key order (see maintenance/export-format.ts).
   */
  exportMemory(write: (text: string) => void, options: { scope?: string; withVectors?: boolean } = {}): ExportReport {
    const scope = options.scope === undefined ? undefined : parseScope(options.scope);
    return exportMemory(this.store, write, { scope, withVectors: options.withVectors, generator: `gllam ${version}` });
  }

  /** Restores an export file in one transaction: ids kept, scopes that hold memory here refused, vectors recomputed or carried. */
  async importMemory(path: string, options: { withVectors?: boolean } = {}): Promise<ImportReport> {
    await this.#ensureStaticTier();
    return importMemory(this.store, path, { withVectors: options.withVectors, tiers: this.tiers });
  }

  /** A consistent copy of the database at `out` while other processes write (VACUUM INTO); an existing `out` only with force. */
  backup(out: string, options: { force?: boolean } = {}): BackupReport {
    return backupTo(this.store, out, options);
  }

  /** Checks the file (integrity, full-text index, references, drift, queues, jobs, WAL, static table) and says what to do about each finding. */
  doctor(now?: number): DoctorReport {
    return runDoctor(this.store, { ...this.tiers, embedder: this.embedder }, now);
  }

  // ---------------------------------------------------------------- semantic
  upsertNode(node: NodeInput): UpsertNodeResult {
    return upsertNode(this.store, node);
  }

  /** A node of the scope (default "default"); one of another scope is undefined, as a missing one. */
  getNode(id: string, options: { scope?: string } = {}): SemanticNode | undefined {
    return readNode(this.store, id, parseScope(options.scope));
  }

  findNodesByName(name: string, scope?: string): SemanticNode[] {
    return findNodesByName(this.store, name, scope);
  }

  /** The node a name means in the scope, created (id derived from the name and scope) when there is none. */
  ensureNodeNamed(name: string, options: { scope?: string } = {}): UpsertNodeResult {
    return ensureNodeNamed(this.store, name, options.scope);
  }

  /** Nodes of the scope whose name or alias looks like `name` mistyped ("Kaddy" for Caddy), closest first. */
  findNearMissNodes(name: string, options: { scope?: string; limit?: number } = {}): NearMiss[] {
    return findNearMissNodes(this.store, name, options.scope, options.limit);
  }

  /** The node a name (id or alias) means in the scope; none is E_NOT_FOUND naming close names, an ambiguous name E_BAD_INPUT. */
  nodeNamed(name: string, options: { scope?: string } = {}): SemanticNode {
    return nodeNamed(this.store, name, options.scope);
  }

  /** What a name means in the scope: its node, or the close names a new node would sit beside. */
  lookUpName(name: string, options: { scope?: string } = {}): NameLookup {
    return lookUpName(this.store, name, options.scope);
  }

  /**
   * A fact as people and agents state it (`gllam fact add`, MCP `add_fact`): names resolved in the
   * scope (new ones become nodes; one close to existing names only with allowNew), the source
   * attributed, then addEdge; one transaction.
   */
  addFact(statement: FactStatement): RecordedFact {
    return recordFact(this.store, this.config, statement);
  }

  /**
   * addFact with the claim's words read by the FAST fallacy judge first, when an LLM is configured
   * (`fact add`, MCP add_fact, HTTP): it confirms or rejects the rule cues and adds what they miss.
   * A judge that fails leaves the rule cues alone, and the result's notes say so.
   */
  async addFactJudged(statement: FactStatement): Promise<RecordedFact> {
    const judge = this.llm.config.fallacy_judge === "auto" && statement.claim?.trim() ? this.#llmJudges().fallacyJudge : undefined;
    if (!judge) return this.addFact(statement);
    const outcome = await askFallacyJudge(judge, {
      text: statement.claim!,
      relationship: statement.relationship,
      subjectName: statement.subject,
      targetName: statement.object,
      proof: statement.proof,
    });
    const result = this.addFact({ ...statement, judged: { findings: outcome.findings, rejected: outcome.rejected } });
    return outcome.error ? { ...result, notes: [...result.notes, `${outcome.error}: the rule cues alone were applied`] } : result;
  }

  /** Pre-structured facts (`gllam fact import`): every one recorded as addFact does, all in one transaction. */
  importFacts(statements: { where: string; statement: FactStatement }[]): FactImportReport {
    return importFacts(this.store, this.config, statements);
  }

  /**
   * Extracts sessions into nodes and links with the STRONG model (`gllam extract`). Without an LLM
   * configured it is E_CONFIG, saying how to name one.
   */
  async extract(options: ExtractOptions = {}): Promise<ExtractReport> {
    const llm = this.llm.strong;
    if (!llm) throw new GllamError("E_CONFIG", "extraction needs an LLM: set STRONG_TEXT_SERVER (and STRONG_LLM_MODEL), OPENROUTER_API_KEY with a model, or --llm-server");
    return extractSessions(
      {
        store: this.store,
        config: this.config,
        llm,
        usage: () => this.llm.usage().total,
        fallacyJudge: this.llm.config.fallacy_judge === "auto" ? this.#llmJudges().fallacyJudge : undefined,
        similarNode: (name, scope, type) => this.#similarNodeId(name, scope, type),
      },
      options,
    );
  }

  /** The node whose static vector is nearest a name, when it is of the same type and very close (entity resolution's last resort). */
  async #similarNodeId(name: string, scope: string, type: string): Promise<string | undefined> {
    const staticTier = this.staticEmbedder;
    if (!staticTier) return undefined;
    const db = this.store.dbRO();
    const { vectors } = await embedNodeQuery(db, { static: staticTier }, name, scope);
    const [nearest] = vectors.static ? nearestNodes(db, { static: vectors.static }, 1, scope) : [];
    // Numbers carry identity that vectors blur ("Python 2" and "Python 3" sit close): they must agree.
    const numbers = (text: string) => (text.match(/\d+/g) ?? []).join(" ");
    const same = nearest && nearest.type === type && nearest.distance <= SAME_ENTITY_DISTANCE && numbers(nearest.name) === numbers(name);
    return same ? nearest.nodeId : undefined;
  }

  /** Seed: RegisterCustomDocumentTypeRule (for this memory's lifetime; the config file makes it lasting). */
  registerCustomDocumentTypeRule(rule: Parameters<typeof registerCustomDocumentTypeRule>[1]): void {
    this.config = registerCustomDocumentTypeRule(this.config, rule);
  }

  /** Seed: RegisterRepositoryContextDirective (for this memory's lifetime; the config file makes it lasting). */
  registerRepositoryContextDirective(directive: RepositoryContextDirective): void {
    this.config = registerRepositoryContextDirective(this.config, directive);
  }

  /** Seed: GetIngestionSteeringPrompt: the content type's prompt, else the global fallback. */
  getIngestionSteeringPrompt(contentType: string): string {
    return getIngestionSteeringPrompt(this.config, contentType).prompt;
  }

  /** Seed: DetermineDocumentIngestionStrategy. */
  determineDocumentIngestionStrategy(docType: string): IngestionStrategy {
    return determineDocumentIngestionStrategy(this.config, docType);
  }

  /** A node's facts: described as they hold at asOf (default now), or as believed at knownAt (system time). */
  facts(name: string, options: { asOf?: number; knownAt?: number; scope?: string } = {}): NodeFacts {
    const scope = parseScope(options.scope);
    const node = this.nodeNamed(name, { scope });
    const asOf = options.asOf ?? Date.now();
    if (options.knownAt === undefined) return { node, asOf, facts: describeFacts(this.store, node.id, { asOf, scope }) };
    const believed = asKnownAt(this.store, node.id, { knownAt: options.knownAt, asOf, scope }).map((link) => {
      const otherId = link.direction === "out" ? link.targetId : link.sourceId;
      return { ...link, otherId, otherName: readNode(this.store, otherId, scope)?.name ?? otherId };
    });
    return { node, asOf, knownAt: options.knownAt, facts: believed };
  }

  /** Every version of (subject, relationship), the subject named as anywhere else. */
  factHistory(subject: string, relationship: string, options: { scope?: string } = {}): { node: SemanticNode; relationship: string; versions: LinkVersion[] } {
    const node = this.nodeNamed(subject, options);
    return { node, relationship, versions: linkHistory(this.store, node.id, relationship, options) };
  }

  /** Every relationship a node (named as anywhere else) states, each with all its versions. */
  nodeHistory(name: string, options: { scope?: string } = {}): { node: SemanticNode; relationships: { relationship: string; versions: LinkVersion[] }[] } {
    const node = this.nodeNamed(name, options);
    return { node, relationships: nodeHistory(this.store, node.id, options) };
  }

  /** A node's 1-2 hop neighbourhood at asOf for drawing: believed, ended and retired links, contradictions marked. */
  neighbourhood(name: string, options: { hops?: number; asOf?: number; scope?: string; maxNodes?: number } = {}): Neighbourhood {
    return readNeighbourhood(this.store, this.nodeNamed(name, options).id, options);
  }

  /** The contradictions of a scope, open first, with both claims, their sources and trust. */
  listContradictions(options?: { scope?: string; status?: "open" | "resolved"; limit?: number }): ContradictionEntry[] {
    return listContradictions(this.store, options);
  }

  /** A stored source (id or handle) with its composite trust weight, its parts and their bases. */
  sourceTrust(ref: string, options?: { scope?: string }): SourceTrust {
    return explainSourceTrust(this.store, this.config, ref, options);
  }

  activeLinks(nodeId: string, options?: ActiveLinkOptions): DirectedLink[] {
    return activeLinks(this.store, nodeId, options);
  }

  storeNodeEmbedding(nodeId: string, options: { scope?: string } = {}): Promise<number> {
    return this.storeNodeEmbeddings([nodeId], options);
  }

  /** Nodes of the scope (default "default"): an id of another scope is E_NOT_FOUND, as a missing one. */
  storeNodeEmbeddings(nodeIds: string[], options: { scope?: string } = {}): Promise<number> {
    return storeNodeEmbeddings(this.store, this.embedder, nodeIds, parseScope(options.scope));
  }

  /** Nearest nodes by model vectors, and by static vectors for nodes whose model vector has not arrived yet. */
  async searchSimilarNodes(query: string, limit = 5, options?: SimilarNodeOptions): Promise<SimilarNode[]> {
    return searchSimilarNodes(this.store, await this.#readTiers(), query, limit, options);
  }

  checkEmbeddingModelVersion(): EmbeddingModelCheck {
    return checkEmbeddingModelVersion(this.store.dbRO(), this.embedder);
  }

  /** Writes the sample memory of the seed's walk-through (idempotent). */
  seedSampleMemory(): Promise<SeedReport> {
    return seedSampleMemory(this.store, this.embedder, this.config);
  }

  // ---------------------------------------------------------------- semantic: claims, trust, history (issue 4)
  /** Records a claim: dedupe, fallacy cues and impacts, and trust-weighted settlement of exclusive relationships. */
  addEdge(link: LinkInput, options: { now?: number } = {}): AddEdgeResult {
    return addEdge(this.store, link, { config: this.config, ...options });
  }

  /** addEdge with a fallacy judge (an LLM) consulted first; a failing judge leaves the rule-based cues. */
  async addEdgeJudged(link: LinkInput, judge: FallacyJudge): Promise<AddEdgeResult & { judgeError?: string }> {
    const scope = parseScope(link.scope);
    const [subject, target] = [readNode(this.store, link.sourceId, scope), readNode(this.store, link.targetId, scope)];
    const outcome = await askFallacyJudge(judge, {
      text: link.claim ?? "",
      relationship: link.relationship,
      subjectName: subject?.name ?? link.sourceId,
      targetName: target?.name ?? link.targetId,
      proof: link.proof,
    });
    const result = addEdge(this.store, link, { config: this.config, judgedFallacies: outcome.findings, rejectedFallacies: outcome.rejected });
    return outcome.error ? { ...result, judgeError: outcome.error } : result;
  }

  invalidateObsoleteEdge(linkId: number, at: number, options?: { scope?: string }): InvalidationResult {
    return invalidateObsoleteEdge(this.store, linkId, at, options);
  }

  invalidateDependentCrossCuttingLinks(nodeId: string, at: number, options?: { maxDepth?: number; scope?: string }): CascadeReport {
    return invalidateDependentCrossCuttingLinks(this.store, this.config, nodeId, at, options);
  }

  resolveContradiction(contradictionId: string, winnerLinkId: number, options?: { scope?: string }): ContradictionResolution {
    return resolveContradiction(this.store, semanticPolicy(this.config), contradictionId, winnerLinkId, options);
  }

  asKnownAt(nodeId: string, options: KnownAtOptions): DirectedLink[] {
    return asKnownAt(this.store, nodeId, options);
  }

  linkHistory(sourceId: string, relationship: string, options?: { scope?: string }): LinkVersion[] {
    return linkHistory(this.store, sourceId, relationship, options);
  }

  describeFacts(nodeId: string, options?: { asOf?: number; scope?: string }): DescribedFact[] {
    return describeFacts(this.store, nodeId, options);
  }

  computeTrustWeight(input: TrustInput, now?: number): TrustBreakdown {
    return computeTrustWeight(input, this.config, now);
  }

  upsertSource(source: SourceInput & { text?: string }): UpsertSourceResult {
    return upsertSource(this.store, this.config, source);
  }

  /** Seed: AttributeContainerEntryToSource(repoType, handle, displayName, text, at). */
  attributeContainerEntryToSource(repoType: string, handle: string, displayName: string, text: string, at?: number, options: { role?: string; scope?: string } = {}): AttributedEntry {
    return attributeContainerEntryToSource(this.store, this.config, { repoType, handle, displayName, text, at, ...options });
  }

  findMultiHopPath(a: string, b: string, options?: PathOptions): MultiHopPath {
    return findMultiHopPath(this.store, a, b, options);
  }

  compactNodeCaveats(nodeId: string, maxInline = 5, options?: { scope?: string }): CaveatCompaction {
    return compactNodeCaveats(this.store, nodeId, maxInline, options);
  }

  batchCompactHubCaveats(minCaveats = 10, maxInline = 5, options?: { scope?: string }): CaveatCompaction[] {
    return batchCompactHubCaveats(this.store, minCaveats, maxInline, options);
  }

  resolveEntity(name: string, options?: { scope?: string }): EntityResolution {
    return resolveEntity(this.store, name, options);
  }

  mergeNodes(keepId: string, dropId: string, options?: { scope?: string }): MergeReport {
    return mergeNodes(this.store, this.config, keepId, dropId, options);
  }

  disambiguateEntityForSource(nodeId: string, sense: string, originSourceId?: string, options: { scope?: string } = {}): Disambiguation {
    return disambiguateEntityForSource(this.store, { nodeId, sense, originSourceId, scope: options.scope });
  }

  /** Removes a node, link, source, episode or session and everything derived only from it, and reports what went. */
  forget(target: ForgetTarget): ForgetReport {
    return forget(this.store, target);
  }

  /** What forget(target) would remove, from a transaction that is rolled back: nothing changes. */
  forgetDryRun(target: ForgetTarget): ForgetReport {
    return this.store.probe(() => forget(this.store, target));
  }

  // ---------------------------------------------------------------- episodic
  /** Turns and chunks in one transaction (idempotent by content hash) with static vectors; model vectors come later. */
  addEpisodes(episodes: EpisodeInput[], options?: AddEpisodesOptions): AddEpisodesResult {
    return addEpisodes(this.store, episodes, { ...options, staticEmbedder: this.staticEmbedder });
  }

  /** Turns appended to their sessions (a turn without seq goes last; the same turn sent again is stored once). */
  remember(turns: TurnInput[]): AddEpisodesResult {
    return rememberTurns(this.store, turns, { staticEmbedder: this.staticEmbedder });
  }

  saveSession(session: SessionInput): void {
    saveSession(this.store, session);
  }

  listSessions(options?: { scope?: string }): SessionSummary[] {
    return listSessions(this.store, options);
  }

  saveEpisodicSummary(summary: EpisodicSummaryInput): number {
    return saveEpisodicSummary(this.store, summary);
  }

  getEpisodicSummaries(options?: { scope?: string; sessionId?: string }): EpisodicSummaryRow[] {
    return getEpisodicSummaries(this.store, options);
  }

  getRecentEpisodes(limit: number, options?: { scope?: string; sessionId?: string }): EpisodeRow[] {
    return getRecentEpisodes(this.store, limit, options);
  }

  /** Episodes per UTC day of a scope in [start, end): a density strip's data. */
  episodeDensity(options?: { scope?: string; start?: number; end?: number }): EpisodeDensity {
    return countEpisodesByDay(this.store, options);
  }

  getEpisodesInWindow(start: number, end: number, options?: { scope?: string; limit?: number }): EpisodeRow[] {
    return getEpisodesInWindow(this.store, start, end, options);
  }

  /**
   * Checks every record of every file first, then writes each file in chunked transactions
   * (`gllam ingest`; see episodic/ingest.ts). The WAL checkpoint manager runs meanwhile (this
   * engine's, else one for the ingest), so it stays bounded; none when a replicator checkpoints.
   */
  async ingestFiles(paths: string[], options?: IngestFileOptions, onProgress?: IngestProgress): Promise<IngestReport> {
    await this.#ensureStaticTier();
    const own = this.#checkpointManager || this.store.externalCheckpoints ? undefined : startWALCheckpointManager(this.store.db(), this.store.path, 1000, { truncateAboveBytes: INGEST_WAL_BYTES });
    try {
      return await ingestFiles(this.store, paths, { ...options, walCheckpoints: this.#checkpointManager ?? own, staticEmbedder: this.staticEmbedder }, onProgress);
    } finally {
      own?.stop();
    }
  }

  /** The static tier's state in this file: ready, empty (no static vectors yet), or drift (another table's); undefined without a static tier. */
  staticTierState(): StaticTierState | undefined {
    const tier = this.staticEmbedder;
    return tier && staticTierState(this.store.dbRO(), tier);
  }

  /** Links every episode of a scope to the nodes it mentions (after nodes were added). */
  relinkMentions(scope?: string): number {
    return this.store.transaction(() => relinkScopeMentions(this.store.db(), parseScope(scope)));
  }

  /** Episodes still waiting for a vector. */
  countUnembedded(): number {
    return countUnembedded(this.store);
  }

  /** Embeds up to n queued episodes on this thread and stores their model vectors (none without a model tier). */
  async processUnembeddedBatch(n = 64): Promise<number> {
    const model = this.tiers.model;
    return model ? (await processUnembeddedBatch(this.store, model, n)).length : 0;
  }

  /**
   * Starts filling episode vectors in the background: `workers` Bun Workers each with its own copy
   * of the embedder (on this thread if the embedder cannot be rebuilt in a worker), looking for new
   * episodes every intervalMs. One pool per engine; close() stops it. Without a model tier there is
   * nothing to fill (static vectors are written at ingest): the filler is idle.
   */
  startEmbeddingWorkerPool(workers = 2, intervalMs = 1000, options: Omit<VectorFillerOptions, "concurrency" | "intervalMs"> = {}): VectorFiller {
    this.#stopPool();
    const pooled = this.#pooledModel(workers);
    if (!pooled) return { embedded: 0, waitForEmbeddings: async () => 0, stop: async () => {} };
    const filler = startVectorFiller(this.store, pooled.embedder, { ...options, concurrency: pooled.concurrency, intervalMs });
    this.#pool = { filler, embedder: pooled.embedder };
    return filler;
  }

  /** The model tier spread over `workers` Bun Workers (on this thread if its embedder cannot be rebuilt in a worker). */
  #pooledModel(workers: number): { embedder: Embedder & { close?: () => void }; concurrency: number } | undefined {
    const template = this.tiers.model;
    if (!template) return undefined;
    const pooled = poolEmbedder(template, { workers });
    return pooled ? { embedder: pooled, concurrency: workers } : { embedder: template, concurrency: 1 };
  }

  /** The filler stops taking work at once (stop() is synchronous up to waiting for batches in flight). */
  #stopPool(): void {
    void this.#pool?.filler.stop();
    this.#pool?.embedder.close?.();
    this.#pool = undefined;
  }

  /** Resolves when every queued episode has a vector (starting a pool of two workers if none runs). */
  waitForEmbeddings(): Promise<number> {
    return (this.#pool ?? { filler: this.startEmbeddingWorkerPool() }).filler.waitForEmbeddings();
  }

  /** Vectors for every node and episode from the active embedder (after a model change, or to fill gaps). */
  /**
   * With `concurrency`, the model tier runs in a pool of that many workers, else on this thread. A
   * background pool of this engine is stopped first: two fillers would race for the same queue.
   */
  async reembedAll(options: ReembedOptions = {}): Promise<ReembedReport> {
    await this.#ensureStaticTier();
    this.#stopPool();
    const pooled = options.concurrency === undefined ? undefined : this.#pooledModel(options.concurrency);
    try {
      const model = pooled?.embedder ?? this.tiers.model;
      return await reembedAll(this.store, { ...this.tiers, model }, { ...options, concurrency: pooled?.concurrency });
    } finally {
      pooled?.embedder.close?.();
    }
  }

  /** Seed: ReembedAllSemanticNodes (it re-embeds episodes too: one vector space per file). */
  reembedAllSemanticNodes(options?: ReembedOptions): Promise<ReembedReport> {
    return this.reembedAll(options);
  }

  // ---------------------------------------------------------------- ontology and sleep cycle (issue 6)
  /** Seed: GetNodesByTaxonomyPrefix. Nodes at the path or below it (case-insensitive), in path order. */
  getNodesByTaxonomyPrefix(prefix: string, options?: TaxonomyPrefixOptions): SemanticNode[] {
    return getNodesByTaxonomyPrefix(this.store, prefix, options);
  }

  /** Seed: DetectTaxonomyCycles (Kahn's algorithm over is_a / subclass_of). */
  detectTaxonomyCycles(options?: { scope?: string }): TaxonomyCycleReport {
    return detectTaxonomyCycles(this.store, options);
  }

  /** Seed: WouldCreateTaxonomyCycle. addEdge refuses such a link with E_TAXONOMY_CYCLE. */
  wouldCreateTaxonomyCycle(childId: string, parentId: string, options?: { scope?: string }): CycleCheck {
    return wouldCreateTaxonomyCycle(this.store, childId, parentId, options);
  }

  /**
   * Seed: ProcessUncategorizedBatch. Files up to n orphans under categories: by the options'
   * Categorizer, else the FAST LLM when one is configured, else embeddings (each decision's reason
   * says which filed it).
   */
  processUncategorizedBatch(n = 50, options?: UncategorizedBatchOptions): Promise<UncategorizedBatchReport> {
    return processUncategorizedBatch(this.store, this.embedder, n, { ...options, categorizer: options?.categorizer ?? this.#llmJudges().categorizer });
  }

  /** The FAST role's judges, when an LLM is configured (else undefined: the rule-based defaults apply). */
  #llmJudges(): { fallacyJudge?: FallacyJudge; categorizer?: Categorizer; caveatSummariser?: CaveatSummariser } {
    const fast = this.llm.fast;
    if (!fast) return {};
    return { fallacyJudge: createLlmFallacyJudge(fast), categorizer: createLlmCategorizer(fast), caveatSummariser: createLlmCaveatSummariser(fast) };
  }

  /** Seed: ConsolidateTaxonomyBranch. Resumes the same move if a crash interrupted it. */
  consolidateTaxonomyBranch(from: string, to: string, options?: ConsolidationOptions): Promise<ConsolidationReport> {
    return consolidateTaxonomyBranch(this.store, from, to, options);
  }

  resumeTaxonomyConsolidations(options?: ConsolidationOptions): Promise<ConsolidationReport[]> {
    return resumeTaxonomyConsolidations(this.store, options);
  }

  /** Seed: DiscoverTaxonomyMergeCandidates (names and embeddings). */
  discoverTaxonomyMergeCandidates(options?: MergeDiscoveryOptions): Promise<TaxonomyMergeCandidate[]> {
    return discoverTaxonomyMergeCandidates(this.store, this.embedder, options);
  }

  /** Seed: SimulateRandomTraceTests. */
  simulateRandomTraceTests(traceCount: number, options?: TraceTestOptions): TraceTestReport {
    return simulateRandomTraceTests(this.store, traceCount, options);
  }

  /** The report the last sleep cycle of a scope stored (null when none ran). */
  lastSleepCycle(options: { scope?: string } = {}): LastSleepCycle | null {
    return readLastSleepCycle(this.store, options.scope);
  }

  /** Seed: EnterMemorySleepCycle. */
  enterMemorySleepCycle(traceCount = 10, options?: SleepCycleOptions): Promise<SleepCycleReport> {
    const judges = this.#llmJudges();
    return enterMemorySleepCycle(this.store, this.embedder, traceCount, {
      ...options,
      categorizer: options?.categorizer ?? judges.categorizer,
      caveatSummariser: options?.caveatSummariser ?? judges.caveatSummariser,
    });
  }

  // ---------------------------------------------------------------- retrieval
  /** Hybrid episode search (BM25 + static and model vectors, fused by weighted RRF, neighbour-boosted). */
  async searchEpisodes(query: string, options?: SearchEpisodesOptions): Promise<EpisodeSearchResult> {
    return searchEpisodes(this.store, await this.#readTiers(), query, options);
  }

  /**
   * Warms recall up for the scopes large enough to have cells (50K episodes or more): keeps their
   * static cells in the KNN worker's memory while it is idle (up to knnCacheMiB; recalls meanwhile
   * come first), then asks `recalls` (default 32) recalls of their latest turns. The first recalls
   * after a start then run about as fast as later ones. `gllam serve` runs it at start.
   */
  async prewarm(options?: { recalls?: number }): Promise<PrewarmReport> {
    return prewarmRecall(this.store, await this.#readTiers(), options);
  }

  async recall(query: string, options?: RecallOptions): Promise<RecallResult> {
    return recall(this.store, await this.#readTiers(), query, options);
  }

  /**
   * Seed: RouteAndAssemble. The query's intent decides what is pulled (the rules', refined by the
   * FAST LLM when one is configured); the result is cited Markdown within the token budget.
   */
  async routeAndAssemble(query: string, options: Omit<RouteOptions, "pddlDomainsDir" | "intentClassifier"> = {}): Promise<AssembledContext> {
    const fast = this.llm.fast;
    return routeAndAssemble(this.store, await this.#readTiers(), query, { ...options, pddlDomainsDir: this.pddlDomainsDir, intentClassifier: fast ? createLlmIntentClassifier(fast) : undefined });
  }

  /**
   * `gllam ask`: the STRONG model answers from the assembled context, with citations, or says it
   * does not know. Without an LLM configured it is E_CONFIG, saying how to name one.
   */
  async ask(question: string, options: Omit<RouteOptions, "pddlDomainsDir" | "intentClassifier"> = {}): Promise<AskResult> {
    const llm = this.llm.strong;
    if (!llm) throw new GllamError("E_CONFIG", "ask needs an LLM: set STRONG_TEXT_SERVER (and STRONG_LLM_MODEL), OPENROUTER_API_KEY with a model, or --llm-server");
    return askFromContext(llm, question, await this.routeAndAssemble(question, options), () => this.llm.usage().strong);
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

  /** Solves a PDDL task given as text (no files: an agent or HTTP caller sends the text). */
  planPddl(task: PddlTexts, options?: PlanFilesOptions): Promise<PlanResult> {
    return planTexts(task, options);
  }

  /** The chain of recipes (procedures with PDDL actions) that reaches a goal such as ["(deployed caddy)"]. */
  planProcedures(goal: string[], options: RecipeChainOptions = {}): RecipeChain {
    return planRecipeChain(this.store, goal, { pddlDomainsDir: this.pddlDomainsDir, ...options });
  }

  /** Orders the scope's events consistently with every temporal link and valid time, or reports the contradiction; writes the PDDL. */
  orderTimeline(scopeInput?: string): TimelineOrder & { files?: PersistedTask } {
    const scope = parseScope(scopeInput);
    const { events, links } = readTimeline(this.store, scope);
    const timeline = buildTimeline(events, links);
    const files = this.pddlDomainsDir === null ? undefined : this.#persistTimeline(timeline, scope);
    return { ...orderTimeline(timeline), ...(files ? { files } : {}) };
  }

  #persistTimeline(timeline: ReturnType<typeof buildTimeline>, scope: string): PersistedTask {
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
