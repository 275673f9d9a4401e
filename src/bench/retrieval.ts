/**
 * `gllam bench retrieval`: each LoCoMo conversation, or each LongMemEval_S question's haystack, is
 * ingested into a fresh database through the real ingest path (static vectors in the ingest
 * transaction, model vectors by the worker pool), then every question is answered by
 * searchEpisodes and scored against its evidence, once per variant (each tier alone, BM25 alone,
 * the fusions) on the same databases.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { Gllam } from "../gllam/gllam.ts";
import { GllamError } from "../engine/errors.ts";
import { createCachedEmbedder } from "../embed/cache.ts";
import { embedOne, type Embedder } from "../embed/embedder.ts";
import type { StaticEmbedder } from "../embed/static/static-embedder.ts";
import { createPooledEmbedder } from "../embed/worker-pool.ts";
import { parseJsonText } from "../episodic/formats/json-text.ts";
import { parseLocomo } from "../episodic/formats/locomo.ts";
import { parseLongMemEval } from "../episodic/formats/longmemeval.ts";
import { collectUnits, type IngestUnit } from "../episodic/formats/source.ts";
import { writeUnits } from "../episodic/ingest.ts";
import { episodeEmbeddingText, startVectorFiller } from "../episodic/vectors.ts";
import type { SearchTuning } from "../retrieval/search-episodes.ts";
import { rankGroups } from "../retrieval/fusion.ts";
import { beamScenarios } from "./beam-scenarios.ts";
import { ndcgAtK, percentile, recallAllAtK, recallAnyAtK, recallAtK, round, summarize } from "./metrics.ts";

/** LoCoMo's documents are turns (evidence dia_ids), LongMemEval's sessions, BEAM's messages (source_chat_ids). */
export const BENCH_DATASETS = ["locomo", "longmemeval", "beam"] as const;
export type BenchDataset = (typeof BENCH_DATASETS)[number];

export type RetrievalBenchOptions = {
  dataset: BenchDataset;
  data: string;
  /** The model tier: embeds queries (this thread) and is the template for the worker pool; none: static tier only. */
  embedder?: Embedder;
  /** The static tier (written at ingest); none: no static vectors. */
  staticEmbedder?: StaticEmbedder;
  /** Embeds queries instead of `embedder` (tuning runs pass a cached one; latency then excludes the model). */
  queryEmbedder?: Embedder;
  workers?: number;
  /** Vector cache file (identical texts embedded once across runs); "" disables it. */
  cachePath?: string;
  /** false: BM25 only, nothing embedded. */
  dense?: boolean;
  /** The default fusion's settings (over DEFAULT_TUNING). */
  tuning?: Partial<SearchTuning>;
  /** Further settings scored on the same databases, by name (tuning grids). */
  variants?: Record<string, Partial<SearchTuning>>;
  /** Only the first n units (conversations / questions), for quick runs. */
  limit?: number;
  onProgress?: (message: string) => void;
};

type Scores = { overall: Record<string, number>; by_category: Record<string, { questions: number } & Record<string, number>> };

export type RetrievalBenchResult = Scores & {
  dataset: string;
  questions: number;
  /** Each variant's scores; `overall` and `by_category` above are the default fusion's. */
  variants: Record<string, Scores>;
  /** Ingest through the real path, static vectors included (model vectors come after). */
  ingest_turns_per_s: number;
  ingest_turns_per_cpu_s: number;
  /** The static embedder on this thread (0 without a static tier). */
  embed_turns_per_s: number;
  /** The model tier's worker pool, on texts the cache has not seen (0 without a model tier). */
  model_embed_turns_per_s: number;
  recall_p50_ms: number;
  recall_p95_ms: number;
  recall_cpu_p50_ms: number;
  recall_cpu_p95_ms: number;
  search_p50_ms: number;
  search_p95_ms: number;
  turns: number;
  tuning: Partial<SearchTuning>;
  embedder: string;
  static_embedder: string;
};

/** Pure retrievers, and BM25 with what each tier adds, scored beside the default fusion. */
const ALONE = { bm25Weight: 0, neighbourWeight: 0, speakerBoost: 0, contextWeight: 0 };
export const TIER_VARIANTS: Record<string, Partial<SearchTuning>> = {
  bm25: { denseWeight: 0, staticWeight: 0, staticAloneWeight: 0 },
  static: { ...ALONE, denseWeight: 0, staticWeight: 1, staticAloneWeight: 1 },
  model: { ...ALONE, staticWeight: 0, staticAloneWeight: 0, denseWeight: 1 },
  /** What recall gives before the background has filled model vectors (or with --embedder static). */
  "bm25+static": { denseWeight: 0 },
  "bm25+model": { staticWeight: 0 },
};

const LOCOMO_CATEGORIES: Record<number, string> = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop" };

export type BenchQuestion = { text: string; group: string; relevant: Set<string>; /** The gold answer, where the benchmark gives one. */ answer?: string };
/** One database's worth of a benchmark: what to ingest, the questions on it, and which document (turn or session) each episode is. */
export type BenchScenario = { unit: IngestUnit; questions: BenchQuestion[]; docOf(episode: { sessionId: string; metadata: Record<string, unknown> }): string };
/** Wall times, and CPU times (what the figures would be on an idle machine; the pool is idle while they are taken). */
type Timing = { ingestTurns: number; ingestSeconds: number; ingestCpuSeconds: number; latencies: number[]; cpuLatencies: number[]; searchLatencies: number[] };

const cpuMs = (since?: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

export const defaultVectorCachePath = () => join(homedir(), ".cache", "gllam", "vector-cache.sqlite");

function locomoScenarios(data: unknown, file: string): BenchScenario[] {
  const units = collectUnits(parseLocomo(data, { file }));
  const samples = data as { sample_id: string; qa: { question: string; answer?: unknown; evidence?: string[]; category: number }[] }[];
  return units.map((unit) => {
    const sample = samples.find((s) => s.sample_id === unit.key)!;
    const known = new Set(unit.episodes.map((e) => String(e.metadata?.dia_id)));
    const questions = sample.qa.flatMap((qa) => {
      const group = LOCOMO_CATEGORIES[qa.category];
      // Malformed evidence strings ("D8:6; D9:17") are split; ids that resolve to no turn are dropped.
      const relevant = new Set((qa.evidence ?? []).flatMap((e) => String(e).split(/[;,\s]+/)).filter((id) => known.has(id)));
      return group && relevant.size > 0 ? [{ text: String(qa.question), group, relevant, ...(qa.answer === undefined ? {} : { answer: String(qa.answer) }) }] : [];
    });
    return { unit, questions, docOf: (episode) => String(episode.metadata.dia_id) };
  });
}

function longMemEvalScenarios(data: unknown, file: string): BenchScenario[] {
  const questions = data as { question_id: string; question_type: string; question: string; answer?: unknown; answer_session_ids: string[] }[];
  const units = collectUnits(parseLongMemEval(data, { file }));
  return units.flatMap((unit) => {
    const question = questions.find((q) => q.question_id === unit.key)!;
    if (question.question_id.endsWith("_abs")) return [];
    const answer = question.answer === undefined ? {} : { answer: String(question.answer) };
    return [{ unit, questions: [{ text: question.question, group: question.question_type, relevant: new Set(question.answer_session_ids), ...answer }], docOf: (episode) => episode.sessionId }];
  });
}

/** Sessions ranked from scored turns (LongMemEval's documents are sessions). */
const SESSION_DECAY = 0.3;

function scoreQuestion(dataset: RetrievalBenchOptions["dataset"], docs: { doc: string; score: number }[], relevant: Set<string>): Record<string, number> {
  if (dataset !== "longmemeval") {
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

/** The static embedder's throughput on one thread over the benchmark's turns (best of three passes). */
function measureStaticThroughput(embedder: StaticEmbedder, texts: string[]): number {
  if (texts.length === 0) return 0;
  let best = Infinity;
  for (let pass = 0; pass < 3; pass++) {
    const started = performance.now();
    embedder.embedSync(texts);
    best = Math.min(best, performance.now() - started);
  }
  return texts.length / (best / 1000);
}

/** Embedding throughput of the worker pool on texts the cache has not seen, measured once per run. */
async function measureEmbedThroughput(pool: Embedder, texts: string[]): Promise<number> {
  if (texts.length === 0) return 0;
  await pool.embed(texts.slice(0, 8)); // load the model in every worker first
  const started = performance.now();
  await pool.embed(texts);
  return texts.length / ((performance.now() - started) / 1000);
}

/** The benchmark's scenarios (LoCoMo: one per conversation; LongMemEval: one per question's haystack; BEAM: one per chat of the folder), the first `limit`. */
export async function loadBenchScenarios(options: { dataset: BenchDataset; data: string; limit?: number }): Promise<BenchScenario[]> {
  if (options.dataset === "beam") return (await beamScenarios(options.data)).slice(0, options.limit ?? Infinity);
  const text = await Bun.file(options.data).text().catch(() => {
    throw new GllamError("E_NOT_FOUND", `cannot read benchmark data ${options.data}`);
  });
  const data = parseJsonText(text, options.data);
  return (options.dataset === "locomo" ? locomoScenarios(data, options.data) : longMemEvalScenarios(data, options.data)).slice(0, options.limit ?? Infinity);
}

/** Model vectors for a scenario just written (none without a model tier), and each episode's document id. */
export async function fillScenario(gllam: Gllam, scenario: BenchScenario, vectorEmbedder: Embedder | undefined, workers: number): Promise<Map<number, string>> {
  if (vectorEmbedder) {
    const filler = startVectorFiller(gllam.store, vectorEmbedder, { concurrency: workers, batchSize: 128 });
    await filler.waitForEmbeddings();
    await filler.stop();
  }
  return new Map(gllam.getRecentEpisodes(100_000).map((e) => [e.id, scenario.docOf(e)]));
}

export async function runRetrievalBench(options: RetrievalBenchOptions): Promise<RetrievalBenchResult> {
  const scenarios = await loadBenchScenarios(options);
  const dense = options.dense !== false;
  const workers = options.workers ?? 2;
  const model = dense ? options.embedder : undefined;
  const staticEmbedder = dense ? options.staticEmbedder : undefined;
  const spec = model?.spec;
  const pool = model && spec ? createPooledEmbedder({ ...model, spec, embed: (t) => model.embed(t) }, { workers }) : undefined;
  const cache = pool && options.cachePath !== "" ? createCachedEmbedder(pool, options.cachePath ?? defaultVectorCachePath()) : undefined;
  const vectorEmbedder = cache ?? pool ?? model;
  const queryEmbedder = model && (options.queryEmbedder ?? model);
  const variants = { ...(dense ? TIER_VARIANTS : {}), ...options.variants, default: options.tuning ?? {} };
  const dir = mkdtempSync(join(tmpdir(), "gllam-bench-retrieval-"));
  const timing: Timing = { ingestTurns: 0, ingestSeconds: 0, ingestCpuSeconds: 0, latencies: [], cpuLatencies: [], searchLatencies: [] };
  const rows: Record<string, { group: string; metrics: Record<string, number> }[]> = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  try {
    const texts = scenarios.flatMap((s) => s.unit.episodes).map((e) => episodeEmbeddingText({ speaker: e.speaker ?? "", content: e.content }));
    const staticRate = staticEmbedder ? measureStaticThroughput(staticEmbedder, texts.slice(0, 50_000)) : 0;
    const modelRate = pool ? await measureEmbedThroughput(pool, texts.slice(0, 256)) : 0;
    for (const [i, scenario] of scenarios.entries()) {
      const gllam = await Gllam.open(join(dir, `${i}.db`), { embedder: queryEmbedder ?? staticEmbedder, staticEmbedder: staticEmbedder ?? null });
      try {
        const started = performance.now();
        const cpuStart = process.cpuUsage();
        writeUnits(gllam.store, [scenario.unit], { staticEmbedder });
        timing.ingestSeconds += (performance.now() - started) / 1000;
        timing.ingestCpuSeconds += cpuMs(cpuStart) / 1000;
        timing.ingestTurns += scenario.unit.episodes.length;
        const docOf = await fillScenario(gllam, scenario, vectorEmbedder, workers);
        const depth = options.dataset === "locomo" ? 20 : 100;
        for (const question of scenario.questions) {
          const started = performance.now();
          const cpuStart = process.cpuUsage();
          const queryVector = queryEmbedder && (await embedOne(queryEmbedder, question.text));
          const embedMs = performance.now() - started;
          const embedCpuMs = cpuMs(cpuStart);
          for (const [name, tuning] of Object.entries(variants)) {
            const searchStarted = performance.now();
            const searchCpuStart = process.cpuUsage();
            const result = await gllam.searchEpisodes(question.text, { k: depth, tuning, queryVector });
            if (name === "default") {
              timing.latencies.push(embedMs + performance.now() - searchStarted);
              timing.cpuLatencies.push(embedCpuMs + cpuMs(searchCpuStart));
              timing.searchLatencies.push(result.searchMs);
            }
            const docs = result.hits.map((hit) => ({ doc: docOf.get(hit.episodeId)!, score: hit.score }));
            rows[name]!.push({ group: question.group, metrics: scoreQuestion(options.dataset, docs, question.relevant) });
          }
        }
      } finally {
        gllam.close();
      }
      options.onProgress?.(`${scenario.unit.key}: ${i + 1}/${scenarios.length} units, ${rows.default!.length} questions`);
    }
    const scores = Object.fromEntries(
      Object.entries(rows).map(([name, list]) => {
        const { overall, byGroup } = summarize(list);
        return [name, { overall, by_category: byGroup }];
      }),
    );
    return {
      dataset: options.dataset,
      questions: rows.default!.length,
      ...scores.default!,
      variants: scores,
      ingest_turns_per_s: Math.round(timing.ingestTurns / timing.ingestSeconds),
      ingest_turns_per_cpu_s: Math.round(timing.ingestTurns / timing.ingestCpuSeconds),
      embed_turns_per_s: Math.round(staticRate),
      model_embed_turns_per_s: round(modelRate, 1),
      recall_p50_ms: round(percentile(timing.latencies, 50), 2),
      recall_p95_ms: round(percentile(timing.latencies, 95), 2),
      recall_cpu_p50_ms: round(percentile(timing.cpuLatencies, 50), 2),
      recall_cpu_p95_ms: round(percentile(timing.cpuLatencies, 95), 2),
      search_p50_ms: round(percentile(timing.searchLatencies, 50), 2),
      search_p95_ms: round(percentile(timing.searchLatencies, 95), 2),
      turns: timing.ingestTurns,
      tuning: options.tuning ?? {},
      embedder: model?.modelVersion ?? "none",
      static_embedder: staticEmbedder?.modelVersion ?? "none",
    };
  } finally {
    cache?.close();
    pool?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
