/**
 * `gllam bench retrieval`: each LoCoMo conversation, or each LongMemEval_S question's haystack, is
 * ingested into a fresh database through the real ingest path (vectors by the worker pool), then
 * every question is answered by searchEpisodes and scored against its evidence.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { Gllam } from "../engine/gllam.ts";
import { GllamError } from "../engine/errors.ts";
import { createCachedEmbedder } from "../embed/cache.ts";
import type { Embedder, EmbedderSpec } from "../embed/embedder.ts";
import { createPooledEmbedder } from "../embed/worker-pool.ts";
import { parseJsonText } from "../episodic/formats/json-text.ts";
import { parseLocomo } from "../episodic/formats/locomo.ts";
import { parseLongMemEval } from "../episodic/formats/longmemeval.ts";
import type { IngestUnit } from "../episodic/formats/source.ts";
import { writeUnits } from "../episodic/ingest.ts";
import { episodeEmbeddingText, startVectorFiller } from "../episodic/vectors.ts";
import type { SearchTuning } from "../retrieval/search-episodes.ts";
import { rankGroups } from "../retrieval/fusion.ts";
import { ndcgAtK, percentile, recallAllAtK, recallAnyAtK, recallAtK, round, summarize } from "./metrics.ts";

export type RetrievalBenchOptions = {
  dataset: "locomo" | "longmemeval";
  data: string;
  /** Embedder for queries (this thread) and the template for the worker pool. */
  embedder: Embedder;
  /** Embeds queries instead of `embedder` (tuning runs pass a cached one; latency then excludes the model). */
  queryEmbedder?: Embedder;
  workers?: number;
  /** Vector cache file (identical texts embedded once across runs); "" disables it. */
  cachePath?: string;
  /** false: BM25 only, nothing embedded. */
  dense?: boolean;
  tuning?: Partial<SearchTuning>;
  /** Only the first n units (conversations / questions), for quick runs. */
  limit?: number;
  onProgress?: (message: string) => void;
};

export type RetrievalBenchResult = {
  dataset: string;
  questions: number;
  overall: Record<string, number>;
  by_category: Record<string, { questions: number } & Record<string, number>>;
  ingest_turns_per_s: number;
  ingest_turns_per_cpu_s: number;
  embed_turns_per_s: number;
  recall_cpu_p50_ms: number;
  recall_cpu_p95_ms: number;
  recall_p50_ms: number;
  recall_p95_ms: number;
  search_p50_ms: number;
  search_p95_ms: number;
  turns: number;
  tuning: Partial<SearchTuning>;
  embedder: string;
};

const LOCOMO_CATEGORIES: Record<number, string> = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop" };

type Question = { text: string; group: string; relevant: Set<string> };
type Scenario = { unit: IngestUnit; questions: Question[]; docOf(episode: { sessionId: string; metadata: Record<string, unknown> }): string };
/** Wall times, and CPU times (what the figures would be on an idle machine; the pool is idle while they are taken). */
type Timing = { ingestTurns: number; ingestSeconds: number; ingestCpuSeconds: number; latencies: number[]; cpuLatencies: number[]; searchLatencies: number[] };

const cpuMs = (since?: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

export const defaultVectorCachePath = () => join(homedir(), ".cache", "gllam", "vector-cache.sqlite");

function locomoScenarios(data: unknown, file: string): Scenario[] {
  const units = parseLocomo(data, { file });
  const samples = data as { sample_id: string; qa: { question: string; evidence?: string[]; category: number }[] }[];
  return units.units.map((unit) => {
    const sample = samples.find((s) => s.sample_id === unit.key)!;
    const known = new Set(unit.episodes.map((e) => String(e.metadata?.dia_id)));
    const questions = sample.qa.flatMap((qa) => {
      const group = LOCOMO_CATEGORIES[qa.category];
      // Malformed evidence strings ("D8:6; D9:17") are split; ids that resolve to no turn are dropped.
      const relevant = new Set((qa.evidence ?? []).flatMap((e) => String(e).split(/[;,\s]+/)).filter((id) => known.has(id)));
      return group && relevant.size > 0 ? [{ text: String(qa.question), group, relevant }] : [];
    });
    return { unit, questions, docOf: (episode) => String(episode.metadata.dia_id) };
  });
}

function longMemEvalScenarios(data: unknown, file: string): Scenario[] {
  const questions = data as { question_id: string; question_type: string; question: string; answer_session_ids: string[] }[];
  const units = parseLongMemEval(data, { file }).units;
  return units.flatMap((unit) => {
    const question = questions.find((q) => q.question_id === unit.key)!;
    if (question.question_id.endsWith("_abs")) return [];
    return [{ unit, questions: [{ text: question.question, group: question.question_type, relevant: new Set(question.answer_session_ids) }], docOf: (episode) => episode.sessionId }];
  });
}

/** Sessions ranked from scored turns (LongMemEval's documents are sessions). */
const SESSION_DECAY = 0.3;

function scoreQuestion(dataset: RetrievalBenchOptions["dataset"], docs: { doc: string; score: number }[], relevant: Set<string>): Record<string, number> {
  if (dataset === "locomo") {
    const ids = docs.map((d) => d.doc);
    return Object.fromEntries([5, 10, 20].map((k) => [`recall@${k}`, recallAtK(ids, relevant, k)]));
  }
  const sessions = rankGroups(docs.map((d) => ({ group: d.doc, score: d.score })), SESSION_DECAY);
  const metrics: Record<string, number> = {};
  for (const k of [5, 10]) {
    metrics[`recall_any@${k}`] = recallAnyAtK(sessions, relevant, k);
    metrics[`recall_all@${k}`] = recallAllAtK(sessions, relevant, k);
    metrics[`ndcg_any@${k}`] = ndcgAtK(sessions, relevant, k);
  }
  return metrics;
}

/** Embedding throughput of the worker pool on texts the cache has not seen, measured once per run. */
async function measureEmbedThroughput(pool: Embedder, texts: string[]): Promise<number> {
  if (texts.length === 0) return 0;
  await pool.embed(texts.slice(0, 8)); // load the model in every worker first
  const started = performance.now();
  await pool.embed(texts);
  return texts.length / ((performance.now() - started) / 1000);
}

export async function runRetrievalBench(options: RetrievalBenchOptions): Promise<RetrievalBenchResult> {
  const text = await Bun.file(options.data).text().catch(() => {
    throw new GllamError("E_NOT_FOUND", `cannot read benchmark data ${options.data}`);
  });
  const data = parseJsonText(text, options.data);
  const scenarios = (options.dataset === "locomo" ? locomoScenarios(data, options.data) : longMemEvalScenarios(data, options.data)).slice(0, options.limit ?? Infinity);
  const dense = options.dense !== false;
  const workers = options.workers ?? 2;
  const spec = options.embedder.spec;
  const pool = dense && spec ? createPooledEmbedder({ ...options.embedder, spec: spec as EmbedderSpec, embed: (t) => options.embedder.embed(t) }, { workers }) : undefined;
  const cache = pool && options.cachePath !== "" ? createCachedEmbedder(pool, options.cachePath ?? defaultVectorCachePath()) : undefined;
  const vectorEmbedder = cache ?? pool ?? options.embedder;
  const dir = mkdtempSync(join(tmpdir(), "gllam-bench-retrieval-"));
  const timing: Timing = { ingestTurns: 0, ingestSeconds: 0, ingestCpuSeconds: 0, latencies: [], cpuLatencies: [], searchLatencies: [] };
  const rows: { group: string; metrics: Record<string, number> }[] = [];
  try {
    const sample = scenarios.flatMap((s) => s.unit.episodes).slice(0, 256);
    const embedRate = pool ? await measureEmbedThroughput(pool, sample.map((e) => episodeEmbeddingText({ speaker: e.speaker ?? "", content: e.content }))) : 0;
    for (const [i, scenario] of scenarios.entries()) {
      const gllam = await Gllam.open(join(dir, `${i}.db`), { embedder: options.queryEmbedder ?? options.embedder });
      try {
        const started = performance.now();
        const cpuStart = process.cpuUsage();
        writeUnits(gllam.store, [scenario.unit]);
        timing.ingestSeconds += (performance.now() - started) / 1000;
        timing.ingestCpuSeconds += cpuMs(cpuStart) / 1000;
        timing.ingestTurns += scenario.unit.episodes.length;
        if (dense) {
          const filler = startVectorFiller(gllam.store, vectorEmbedder, { concurrency: workers, batchSize: 128 });
          await filler.waitForEmbeddings();
          await filler.stop();
        }
        const docOf = new Map(gllam.getRecentEpisodes(100_000).map((e) => [e.id, scenario.docOf(e)]));
        const depth = options.dataset === "locomo" ? 20 : 100;
        for (const question of scenario.questions) {
          const started = performance.now();
          const cpuStart = process.cpuUsage();
          const result = await gllam.searchEpisodes(question.text, { k: depth, tuning: options.tuning });
          timing.latencies.push(performance.now() - started);
          timing.cpuLatencies.push(cpuMs(cpuStart));
          timing.searchLatencies.push(result.searchMs);
          const docs = result.hits.map((hit) => ({ doc: docOf.get(hit.episodeId)!, score: hit.score }));
          rows.push({ group: question.group, metrics: scoreQuestion(options.dataset, docs, question.relevant) });
        }
      } finally {
        gllam.close();
      }
      options.onProgress?.(`${scenario.unit.key}: ${i + 1}/${scenarios.length} units, ${rows.length} questions`);
    }
    const { overall, byGroup } = summarize(rows);
    return {
      dataset: options.dataset,
      questions: rows.length,
      overall,
      by_category: byGroup,
      ingest_turns_per_s: Math.round(timing.ingestTurns / timing.ingestSeconds),
      ingest_turns_per_cpu_s: Math.round(timing.ingestTurns / timing.ingestCpuSeconds),
      embed_turns_per_s: round(embedRate, 1),
      recall_p50_ms: round(percentile(timing.latencies, 50), 2),
      recall_p95_ms: round(percentile(timing.latencies, 95), 2),
      recall_cpu_p50_ms: round(percentile(timing.cpuLatencies, 50), 2),
      recall_cpu_p95_ms: round(percentile(timing.cpuLatencies, 95), 2),
      search_p50_ms: round(percentile(timing.searchLatencies, 50), 2),
      search_p95_ms: round(percentile(timing.searchLatencies, 95), 2),
      turns: timing.ingestTurns,
      tuning: options.tuning ?? {},
      embedder: dense ? options.embedder.modelVersion : "none (BM25 only)",
    };
  } finally {
    cache?.close();
    pool?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
