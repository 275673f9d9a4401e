/**
 * Seed: EnterMemorySleepCycle. Offline maintenance in one call: finish interrupted taxonomy
 * consolidations, compact hub caveats (links are never deleted), discover synonym categories and
 * merge the clear ones, file uncategorized nodes, look for taxonomy cycles, then exercise the memory
 * with synthetic trace tests and score it. A step that fails with a GllamError (an unreachable
 * embedder, say) is reported and the others still run.
 */
import type { Embedder } from "../embed/embedder.ts";
import { finishJob, readLastFinishedJob, startJob } from "../engine/jobs.ts";
import type { Store } from "../engine/store.ts";
import { GllamError } from "../engine/errors.ts";
import { batchCompactHubCaveats, batchCompactHubCaveatsWith, type CaveatSummariser } from "../semantic/caveats.ts";
import { parseScope } from "../memory/parse.ts";
import { readNodes } from "../semantic/nodes.ts";
import { detectTaxonomyCycles } from "../semantic/taxonomy.ts";
import { countUncategorized, processUncategorizedBatch, type Categorizer } from "../semantic/taxonomy-categorize.ts";
import { consolidateTaxonomyBranch, resumeTaxonomyConsolidations, type ConsolidationOptions } from "../semantic/taxonomy-consolidate.ts";
import { discoverTaxonomyMergeCandidates, type TaxonomyMergeCandidate } from "../semantic/taxonomy-merge.ts";
import { isUnderTaxonomyPath } from "../semantic/taxonomy-paths.ts";
import { catchUpLexicon } from "../episodic/lexicon/build.ts";
import { simulateRandomTraceTests, type TraceResult } from "./trace-tests.ts";

export const SLEEP_STEPS = ["lexicon", "resume", "compact", "merge", "categorize", "cycles", "traces"] as const;
export type SleepStep = (typeof SLEEP_STEPS)[number];

export type SleepCycleOptions = {
  scope?: string;
  /** Seed of the trace sampler (default: random, reported so a run can be repeated). */
  seed?: number;
  maxHops?: number;
  /** Hub caveat compaction: nodes with more than minCaveats caveated links keep maxInline inline (10, 5). */
  minCaveats?: number;
  maxInline?: number;
  /** Category pairs reported from this score (0.6) and merged from autoMergeScore (0.85). */
  mergeMinScore?: number;
  autoMergeScore?: number;
  /** Uncategorized nodes filed per batch (50) and per cycle at most (1000). */
  uncategorizedBatch?: number;
  maxUncategorized?: number;
  categorizer?: Categorizer;
  /** Writes hub caveat summaries (an LLM); default: the deterministic template. */
  caveatSummariser?: CaveatSummariser;
  consolidation?: Pick<ConsolidationOptions, "batchSize" | "pauseMs">;
  onProgress?: (step: SleepStep, message: string) => void;
};

export type SleepCycleReport = {
  jobId: number;
  scope: string;
  seed: number;
  startedAt: number;
  seconds: number;
  /** Blocks of the episode lexicon made for a large scope's episodes still waiting for one. */
  lexiconBlocks: number;
  resumedConsolidations: number;
  compactedHubs: number;
  /** Seed: CompactedRevisionsCount, caveats moved from inline into hub summaries. */
  compactedRevisionsCount: number;
  /** Who wrote the hub summaries and filed the orphans: "template" / "embedding", or an LLM ("llm:<model>"). */
  caveatSummariser: string;
  categorizer: string;
  /** Where an LLM failed and the rule-based answer was used instead. */
  fallbacks: string[];
  mergeCandidates: TaxonomyMergeCandidate[];
  consolidations: { from: string; to: string; score: number; moved: number }[];
  movedNodes: number;
  categorizedCount: number;
  createdCategories: number;
  uncategorizedRemaining: number;
  /** Taxonomy cycles found (by node names); addEdge refuses new ones, old files may hold some. */
  taxonomyCycles: string[][];
  traces: TraceResult[];
  memoryClarityScore: number | null;
  memoryConsistencyScore: number | null;
  errors: { step: SleepStep; code: string; message: string }[];
};

export async function enterMemorySleepCycle(store: Store, embedder: Embedder, traceCount = 10, options: SleepCycleOptions = {}): Promise<SleepCycleReport> {
  const scope = parseScope(options.scope);
  const started = performance.now();
  const report: SleepCycleReport = {
    jobId: 0,
    scope,
    seed: options.seed ?? Math.floor(Math.random() * 2 ** 31),
    startedAt: Date.now(),
    seconds: 0,
    lexiconBlocks: 0,
    resumedConsolidations: 0,
    compactedHubs: 0,
    compactedRevisionsCount: 0,
    caveatSummariser: options.caveatSummariser?.name ?? "template",
    categorizer: options.categorizer?.name ?? "embedding",
    fallbacks: [],
    mergeCandidates: [],
    consolidations: [],
    movedNodes: 0,
    categorizedCount: 0,
    createdCategories: 0,
    uncategorizedRemaining: 0,
    taxonomyCycles: [],
    traces: [],
    memoryClarityScore: null,
    memoryConsistencyScore: null,
    errors: [],
  };
  const progress = options.onProgress ?? (() => {});
  const step = async (name: SleepStep, message: string, fn: () => Promise<void> | void) => {
    progress(name, message);
    try {
      await fn();
    } catch (error) {
      if (!(error instanceof GllamError)) throw error;
      report.errors.push({ step: name, code: error.code, message: error.message });
    }
  };
  const consolidation = { scope, ...options.consolidation };

  await step("lexicon", "indexing waiting episodes for BM25", () => {
    report.lexiconBlocks = catchUpLexicon(store, scope);
  });
  await step("resume", "finishing interrupted taxonomy consolidations", async () => {
    const resumed = await resumeTaxonomyConsolidations(store, consolidation);
    report.resumedConsolidations = resumed.length;
    report.movedNodes += resumed.reduce((n, r) => n + r.moved, 0);
  });
  await step("compact", "compacting hub caveats", async () => {
    const [minCaveats, maxInline] = [options.minCaveats ?? 10, options.maxInline ?? 5];
    const compactions = options.caveatSummariser
      ? await batchCompactHubCaveatsWith(store, options.caveatSummariser, minCaveats, maxInline, { scope })
      : batchCompactHubCaveats(store, minCaveats, maxInline, { scope });
    for (const c of compactions) if ("summariserError" in c && c.summariserError) report.fallbacks.push(`${c.nodeId}: ${c.summariserError}`);
    report.compactedHubs = compactions.length;
    report.compactedRevisionsCount = compactions.reduce((n, c) => n + c.prunedCount, 0);
  });
  await step("merge", "looking for synonym categories", async () => {
    report.mergeCandidates = await discoverTaxonomyMergeCandidates(store, embedder, { scope, minScore: options.mergeMinScore });
    const touched: string[] = [];
    const overlaps = (path: string) => touched.some((t) => isUnderTaxonomyPath(path, t) || isUnderTaxonomyPath(t, path));
    for (const candidate of report.mergeCandidates) {
      // Each branch moves at most once per cycle: an earlier merge may have moved this pair's paths.
      if (candidate.score < (options.autoMergeScore ?? 0.85) || overlaps(candidate.from.path) || overlaps(candidate.to.path)) continue;
      progress("merge", `merging ${candidate.from.path} into ${candidate.to.path}`);
      const done = await consolidateTaxonomyBranch(store, candidate.from.path, candidate.to.path, consolidation);
      touched.push(candidate.from.path, candidate.to.path);
      report.consolidations.push({ from: done.from, to: done.to, score: candidate.score, moved: done.moved });
      report.movedNodes += done.moved;
    }
  });
  await step("categorize", "filing uncategorized nodes", async () => {
    const limit = options.maxUncategorized ?? 1000;
    while (report.categorizedCount < limit) {
      const batch = await processUncategorizedBatch(store, embedder, Math.min(options.uncategorizedBatch ?? 50, limit - report.categorizedCount), {
        scope,
        categorizer: options.categorizer,
      });
      report.categorizedCount += batch.categorized.length;
      report.createdCategories += batch.createdCategories.length;
      progress("categorize", `filed ${report.categorizedCount} nodes, ${batch.remaining} left`);
      if (batch.categorized.length === 0 || batch.remaining === 0) break;
    }
    report.uncategorizedRemaining = countUncategorized(store, scope);
  });
  await step("cycles", "checking the taxonomy for cycles", () => {
    const cycles = detectTaxonomyCycles(store, { scope }).cycles;
    report.taxonomyCycles = cycles.map((ids) => readNodes(store, ids, scope).map((n) => n.name));
  });
  await step("traces", `running ${traceCount} synthetic trace tests`, () => {
    const traces = simulateRandomTraceTests(store, traceCount, { scope, seed: report.seed, maxHops: options.maxHops });
    Object.assign(report, { traces: traces.traces, memoryClarityScore: traces.memoryClarityScore, memoryConsistencyScore: traces.memoryConsistencyScore });
  });
  report.seconds = (performance.now() - started) / 1000;
  store.transaction(() => {
    const db = store.db();
    const { traces, mergeCandidates, ...summary } = report;
    const job = startJob(db, { kind: "sleep_cycle", scope, params: { traceCount, seed: report.seed } });
    report.jobId = job.id;
    finishJob(db, job.id, report.errors.length > 0 ? "failed" : "done", { ...summary, jobId: job.id, traceCount: traces.length, mergeCandidateCount: mergeCandidates.length });
  });
  return report;
}

/** What the last sleep cycle of a scope recorded (its report without the traces and merge candidates), if one ran. */
export type LastSleepCycle = { status: "done" | "failed"; finishedAt: number; report: Omit<SleepCycleReport, "traces" | "mergeCandidates"> & { traceCount: number; mergeCandidateCount: number } };

export function readLastSleepCycle(store: Store, scope?: string): LastSleepCycle | null {
  const job = readLastFinishedJob(store.dbRO(), "sleep_cycle", parseScope(scope));
  return job ? { status: job.status as "done" | "failed", finishedAt: job.finishedAt ?? job.updatedAt, report: job.state as LastSleepCycle["report"] } : null;
}
