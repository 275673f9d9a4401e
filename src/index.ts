/** GLLAM's public library API. */
export { Gllam, type GllamOptions } from "./gllam/gllam.ts";
export { Store, type StoreOptions, type BusyWaitOptions, DEFAULT_BUSY_TIMEOUT_MS } from "./engine/store.ts";
export { GllamError, isGllamError, type GllamErrorCode } from "./engine/errors.ts";
export { SCHEMA_VERSION } from "./engine/schema.ts";
export type { CheckpointMode, CheckpointResult, WALCheckpointManager, WALCheckpointOptions } from "./engine/wal.ts";
export type { StoreStats } from "./engine/stats.ts";
export type { Embedder } from "./embed/embedder.ts";
export { createLocalModelEmbedder, LOCAL_MODEL_DIMS, LOCAL_MODEL_VERSION } from "./embed/local-model.ts";
export { createHttpEmbedder, type HttpEmbedderOptions } from "./embed/http.ts";
export { ensureStaticTable, loadStaticEmbedder } from "./embed/static/bundled-table.ts";
export type { StaticEmbedder } from "./embed/static/static-embedder.ts";
export type { EmbeddingTiers } from "./retrieval/search-episodes.ts";
export type { FileIngestReport, IngestFileOptions, IngestProgress, IngestReport } from "./episodic/ingest.ts";
export { loadSystemPromptsConfig, defaultAgenticMemoryConfig, mergeAgenticMemoryConfig, type AgenticMemoryConfig } from "./config/prompts.ts";
export { readEnv, type GllamEnv } from "./config/env.ts";
export type { DirectedLink } from "./semantic/links.ts";
export type { AddEdgeAction, AddEdgeResult } from "./semantic/add-edge.ts";
export type { CaveatCompaction } from "./semantic/caveats.ts";
export type { Disambiguation, EntityResolution, MergeReport } from "./semantic/entities.ts";
export type { DescribedFact } from "./semantic/facts.ts";
export { FALLACY_KINDS, isExpansionSuppressed, isPlannerUsable, isUsableAsRule, type FallacyFinding, type FallacyJudge, type FallacyKind } from "./semantic/fallacies.ts";
export type { ForgetReport, ForgetTarget } from "./semantic/forget.ts";
export type { LinkVersion } from "./semantic/history.ts";
export type { CascadeReport, InvalidationResult } from "./semantic/invalidation.ts";
export type { MultiHopPath, PathOptions } from "./semantic/paths.ts";
export { computeTrustWeight, explainTrust, type TrustBreakdown, type TrustInput } from "./semantic/trust.ts";
export { normalizeEntityName } from "./semantic/names.ts";
export type { UpsertNodeResult } from "./semantic/nodes.ts";
export type { EmbeddingModelCheck } from "./semantic/node-vectors.ts";
export { nodeEmbeddingText } from "./semantic/node-text.ts";
export type { SeedReport } from "./semantic/sample.ts";
export { TAXONOMY_RELATIONSHIPS, type CycleCheck, type TaxonomyPrefixOptions } from "./semantic/taxonomy.ts";
export { findTaxonomyCycles, type TaxonomyCycleReport, type TaxonomyEdge } from "./semantic/taxonomy-cycles.ts";
export { isUnderTaxonomyPath, normalizeTaxonomyPath, rewriteTaxonomyPath } from "./semantic/taxonomy-paths.ts";
export {
  createEmbeddingCategorizer,
  type CategoryCandidate,
  type CategoryDecision,
  type Categorizer,
  type OrphanNode,
  type UncategorizedBatchOptions,
  type UncategorizedBatchReport,
} from "./semantic/taxonomy-categorize.ts";
export type { ConsolidationOptions, ConsolidationProgress, ConsolidationReport } from "./semantic/taxonomy-consolidate.ts";
export { categoryNameSimilarity, scoreCategoryPair, type MergeDiscoveryOptions, type TaxonomyMergeCandidate } from "./semantic/taxonomy-merge.ts";
export { calculateTaxonomyPathOverlap, calculateTraceClarity, summarizeTraces, type TraceEvidence } from "./maintenance/trace-scores.ts";
export type { TraceResult, TraceTestOptions, TraceTestReport } from "./maintenance/trace-tests.ts";
export type { SleepCycleOptions, SleepCycleReport, SleepStep } from "./maintenance/sleep-cycle.ts";
export type { ReembedOptions, ReembedProgress, ReembedReport } from "./maintenance/reembed.ts";
export type { RecallOptions, RecallResult } from "./retrieval/recall.ts";
export { formatRecallMarkdown } from "./retrieval/format.ts";
export type { AssembledContext, AssembledItem, RouteOptions } from "./router/route.ts";
export { classifyIntent, INTENT_RULES, type Intent, type QueryIntent } from "./router/intent.ts";
export { resolveDateExpressions, type DateWindow } from "./router/dates.ts";
export { estimateTokens, packContext, type ContextItem } from "./router/budget.ts";
export * from "./memory/types.ts";
export { parseDomain, parseProblem, SUPPORTED_REQUIREMENTS } from "./planning/parser.ts";
export { writeDomain, writeProblem } from "./planning/writer.ts";
export type { Domain, Problem, ActionSchema, Atom, Literal, PlanStep, TypedName } from "./planning/pddl-types.ts";
export { solveNative, type NativePlannerOptions, type PlanResult, type PlanStatus } from "./planning/planner.ts";
export { planFiles, loadTask, PLANNER_CHOICES, type PlannerChoice, type PlanFilesOptions } from "./planning/solve.ts";
export { validatePlan, type PlanValidation } from "./planning/validate.ts";
export { formatPlan, parsePlanText } from "./planning/plan-text.ts";
export { runFastDownward, resolveFastDownwardPath, type FastDownwardOptions } from "./planning/fast-downward.ts";
export { buildTimeline, orderTimeline, isOrderPossible, whichCameFirst, whatHappenedBetween, compileTimelinePddl } from "./planning/timeline.ts";
export type { TimelineEvent, TimelineLink, TimelineOrder, FirstAnswer, OrderAnswer } from "./planning/timeline.ts";
export type { OrderingConstraint, TimePoint } from "./planning/timeline-graph.ts";
export type { RecipeChain, RecipeChainOptions, RecipeStep } from "./procedural/recipe-chain.ts";
export type { UpsertProcedureResult } from "./procedural/procedures.ts";
export { openGllam, withGllam, GllamSettingsSchema, type GllamSettings, type OpenMode } from "./gllam/open.ts";
export { OPERATIONS } from "./gllam/operations.ts";
export { parseOperationInput, runOperation, type Operation } from "./gllam/operation.ts";
export { LlmLayer, LlmClient, type ChatMessage, type LlmUsage } from "./llm/client.ts";
export { resolveLlmEndpoints, OPENROUTER_BASE_URL, type LlmEndpoint, type LlmRole, type LlmSettings } from "./llm/endpoints.ts";
export { createLlmFallacyJudge, createLlmCategorizer, createLlmCaveatSummariser } from "./llm/judges.ts";
export {
  getIngestionSteeringPrompt,
  determineDocumentIngestionStrategy,
  registerCustomDocumentTypeRule,
  registerRepositoryContextDirective,
  type IngestionStrategy,
  type CustomDocumentTypeRule,
  type RepositoryContextDirective,
} from "./config/registries.ts";
export type { ExtractOptions, ExtractReport, ExtractProgress, SessionOutcome } from "./extraction/extract.ts";
export type { FactImportReport } from "./extraction/import-facts.ts";
