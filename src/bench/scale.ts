/**
 * `gllam bench scale`: one scope grown through the real ingest path (writeUnits, static vectors in
 * the ingest transaction) to each size in turn, from realistic turns (scale-corpus.ts); at each
 * size, recall as a user runs it (static query embedding), BM25 alone, recall with the model tier
 * over a sample that has model vectors, the static KNN against exact KNN, file size and peak RSS.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GllamError } from "../engine/errors.ts";
import type { Embedder } from "../embed/embedder.ts";
import type { StaticEmbedder } from "../embed/static/static-embedder.ts";
import { parseJsonText } from "../episodic/formats/json-text.ts";
import { parseLocomo } from "../episodic/formats/locomo.ts";
import { collectUnits } from "../episodic/formats/source.ts";
import { startEmbedAhead } from "../episodic/embed-ahead.ts";
import { sampleEvenly } from "../episodic/episode-cells.ts";
import { parseUnits, releaseWriterCache, writeBatches } from "../episodic/ingest.ts";
import { exactStaticEpisodes, knnStaticEpisodes } from "../episodic/static-vectors.ts";
import { processUnembeddedBatch } from "../episodic/vectors.ts";
import { recall } from "../retrieval/recall.ts";
import { poolEmbedder } from "../embed/worker-pool.ts";
import { Gllam } from "../gllam/gllam.ts";
import { mean, percentile, recallAtK, round } from "./metrics.ts";
import { buildScaleCorpus, corpusSlice, docKeyOf, type ScaleCorpus, type ScaleTurn } from "./scale-corpus.ts";

export type ScaleBenchOptions = {
  data: string;
  sizes: number[];
  staticEmbedder: StaticEmbedder;
  /** The model tier for the sample; none: model_recall is not measured. */
  modelEmbedder?: Embedder;
  /** Episodes given model vectors (the first ones stored). */
  modelSample: number;
  /** Questions asked at each size (and as many new ones, after `warm` others). */
  queries: number;
  /** Other questions asked, untimed, before the new ones (readQuestionSets). */
  warm: number;
  /** Keep the database here (a new file); default a temporary one. */
  db?: string;
  /** `db` is a file this benchmark built from the same data: grow it further (continueScaleFile). */
  continueFile?: boolean;
  onProgress?: (line: string) => void;
};

export type ScaleRow = {
  episodes: number;
  ingest_turns_per_s: number;
  ingest_turns_per_cpu_s: number;
  db_bytes: number;
  recall_p50_ms: number;
  recall_p95_ms: number;
  /**
   * The same questions asked again: what a server that has answered recalls for a while answers
   * in, its KNN worker holding the probed cells' chunks (kept-chunks.ts) as it holds them all after
   * enough recalls. recall_p50_ms is the first time each is asked.
   */
  recall_again_p50_ms: number;
  recall_again_p95_ms: number;
  /**
   * Questions not asked before (none of the asked ones' texts), after the asked ones and `warm`
   * others: what a server that has been answering answers a new question in. Null: the data holds
   * no other questions.
   */
  recall_new_p50_ms: number | null;
  recall_new_p95_ms: number | null;
  lexical_p50_ms: number;
  model_recall_p50_ms: number | null;
  /** Static KNN: the engine's (approximate) and brute-force exact, over the same vectors. */
  knn_p50_ms: number;
  /** The engine's static KNN asked for 100 neighbours, as recall asks (tuning.candidates). */
  knn_k100_p50_ms: number;
  knn_exact_p50_ms: number;
  /** Evidence turns (in any copy) among the KNN's top 10, averaged over questions. */
  knn_recall_at_10: number;
  knn_exact_recall_at_10: number;
  /** Share of exact KNN's top 10 the engine's KNN returns too. */
  knn_overlap_at_10: number;
  /** Peak resident memory while this size's turns were ingested, then while it was queried (VmHWM reset before each phase; the process's peak when the kernel cannot reset it). */
  ingest_peak_rss_mb: number;
  query_peak_rss_mb: number;
  /** The process's peak so far. */
  peak_rss_mb: number;
  rss_anon_mb: number | null;
  rss_file_mb: number | null;
};

export type ScaleBenchResult = {
  sizes: ScaleRow[];
  peak_rss_mb: number;
  /** Resident memory once the engine is open and the static table loaded, before any ingest. */
  base_rss_mb: number;
  /** What loading the model and embedding the sample added to the resident memory (null: no model). */
  model_rss_mb: number | null;
  turns_per_copy: number;
  questions: number;
  /** Other questions asked before the new ones, and the new ones timed. */
  questions_warm: number;
  questions_new: number;
  static_embedder: string;
  model_sample: number;
  /** Ingest chunks whose static vectors and cells the worker computed (embed-ahead.ts), and those it failed (then the writer's thread did). */
  embedded_ahead: { chunks: number; failed: number };
  /** The allocator setting the process ran with (null: Bun's default); it moves recall and ingest by a fifth or more (src/cli/allocator.ts). */
  mimalloc_purge_delay: string | null;
  /** Each size measured in a process of its own (scale-processes.ts), or all in one, each size's memory figures then including what the sizes before it left. */
  process_per_size: boolean;
};

type Question = { text: string; relevant: Set<string> };
/** The questions timed twice (asked), then others asked untimed (warm), then new ones timed (fresh). */
export type QuestionSets = { asked: Question[]; warm: Question[]; fresh: Question[] };

function listQuestions(data: unknown): Question[] {
  const samples = data as { sample_id: string; qa?: { question: unknown; evidence?: unknown[] }[] }[];
  return samples.flatMap((sample) =>
    (sample.qa ?? []).flatMap((qa) => {
      const relevant = new Set((qa.evidence ?? []).flatMap((e) => String(e).split(/[;,\s]+/)).filter(Boolean).map((id) => `${sample.sample_id}:${id}`));
      return relevant.size > 0 && typeof qa.question === "string" ? [{ text: qa.question, relevant }] : [];
    }),
  );
}

// Evenly spread over the file, so every conversation is asked about.
const spread = (questions: Question[], count: number) => sampleEvenly(questions, questions.length, count, (question) => question);

export function readQuestions(data: unknown, count: number): Question[] {
  return spread(listQuestions(data), count);
}

/**
 * `count` questions spread over the file (asked); then, of the other texts (each once), `count`
 * new ones (fresh: at most half of them) and up to `warm` of the rest, to be asked before the
 * fresh ones: a server answers questions it has not seen, about a memory it has answered others on.
 */
export function readQuestionSets(data: unknown, count: number, warm: number): QuestionSets {
  const all = listQuestions(data);
  const asked = spread(all, count);
  const askedTexts = new Set(asked.map((question) => question.text));
  // Each text once: a question the file holds twice is new only the first time it is asked.
  const unasked = [...new Map(all.filter((question) => !askedTexts.has(question.text)).map((question) => [question.text, question])).values()];
  const fresh = spread(unasked, Math.min(count, Math.floor(unasked.length / 2)));
  const freshTexts = new Set(fresh.map((question) => question.text));
  return { asked, warm: spread(unasked.filter((question) => !freshTexts.has(question.text)), warm), fresh };
}

/** A field of /proc/self/status in MB (Linux), or undefined. */
function procStatusMb(field: string): number | undefined {
  try {
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync("/proc/self/status", "utf8"));
    return match ? Math.round(Number(match[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

/** Peak resident memory of this process so far (VmHWM), else the current RSS. */
export const peakRssMb = (): number => procStatusMb("VmHWM") ?? Math.round(process.memoryUsage().rss / 1024 ** 2);

/** Resident memory of this process now (VmRSS), else what Bun reports. */
export const rssMb = (): number => procStatusMb("VmRSS") ?? Math.round(process.memoryUsage().rss / 1024 ** 2);

/**
 * Starts a new peak: garbage of the phase before is collected (else it stays resident until the
 * collector runs and counts against the next phase), then VmHWM falls to the current RSS (Linux:
 * "5" to clear_refs); elsewhere only the collection.
 */
export function resetPeakRss(): void {
  Bun.gc(true);
  try {
    writeFileSync("/proc/self/clear_refs", "5");
  } catch {
    // No procfs: the phase peaks are the process's.
  }
}

/**
 * The resident memory now, split: anonymous (heaps, SQLite's page caches) and file-backed (the
 * reader's memory map of the database, which the kernel drops under pressure). Linux only.
 */
const rssSplitMb = () => ({ rss_anon_mb: procStatusMb("RssAnon") ?? null, rss_file_mb: procStatusMb("RssFile") ?? null });

const cpuSeconds = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
};

async function timeEach<T>(items: T[], run: (item: T) => unknown): Promise<number[]> {
  const times: number[] = [];
  for (const item of items) {
    const started = performance.now();
    await run(item);
    times.push(performance.now() - started);
  }
  return times;
}

/** Turns written per transaction: the ingest path's own chunk. */
const INGEST_CHUNK = 5000;

/** The benchmark's data file read: its conversations replicated (the corpus) and its questions. */
export async function readScaleData(path: string, queries: number, warm: number) {
  const text = await Bun.file(path).text().catch(() => {
    throw new GllamError("E_NOT_FOUND", `cannot read benchmark data ${path}`);
  });
  const data = parseJsonText(text, path);
  const units = collectUnits(parseLocomo(data, { file: path }));
  if (units.length === 0) throw new GllamError("E_BAD_INPUT", `${path} holds no LoCoMo conversations`);
  return { corpus: buildScaleCorpus(units), sets: readQuestionSets(data, queries, warm) };
}

/**
 * The turns a file this benchmark built already holds, checked against the corpus: its last turn
 * must be the corpus's turn at that position, or the file was built from other data (or is not
 * the benchmark's) and growing it would mix two corpora.
 */
function continueScaleFile(gllam: Gllam, corpus: ScaleCorpus, path: string): number {
  const db = gllam.store.dbRO();
  const stored = db.query<{ n: number }, []>("SELECT count(*) AS n FROM episodes WHERE scope = 'default'").get()!.n;
  if (stored === 0) return 0;
  const last = db.query<{ content: string; doc: string | null }, []>("SELECT content, metadata ->> '$.doc' AS doc FROM episodes WHERE scope = 'default' ORDER BY id DESC LIMIT 1").get()!;
  const expected = corpusSlice(corpus, stored - 1, stored)[0]!.episodes[0]! as ScaleTurn;
  if (last.content !== expected.content || last.doc !== expected.metadata.doc) {
    throw new GllamError("E_BAD_INPUT", `${path} was not built by \`gllam bench scale\` from this --data: its turn ${stored} is not the corpus's (continue only a file the benchmark built from the same data)`);
  }
  return stored;
}

/**
 * The file the benchmark writes: `db` checked (new, or existing when continued), else one in a
 * temporary folder that `remove` deletes.
 */
export function scaleFile(db: string | undefined, continueFile: boolean): { path: string; remove(): void } {
  if (continueFile && !(db && existsSync(db))) throw new GllamError("E_NOT_FOUND", `--continue grows an existing --db file; ${db ? `${db} does not exist` : "none was given"}`);
  if (!continueFile && db && existsSync(db)) throw new GllamError("E_BAD_INPUT", `--db ${db} exists: the benchmark builds a new file (--continue grows one it built)`);
  if (db) return { path: db, remove: () => {} };
  const folder = mkdtempSync(join(tmpdir(), "gllam-bench-scale-"));
  return { path: join(folder, "scale.db"), remove: () => rmSync(folder, { recursive: true, force: true }) };
}

export async function runScaleBench(options: ScaleBenchOptions): Promise<ScaleBenchResult> {
  const sizes = [...options.sizes].sort((a, b) => a - b);
  const { corpus, sets } = await readScaleData(options.data, options.queries, options.warm);
  const questions = sets.asked;
  const file = scaleFile(options.db, options.continueFile === true);
  const path = file.path;
  const gllam = await Gllam.open(path, { embedder: options.staticEmbedder, staticEmbedder: options.staticEmbedder });
  const rows: ScaleRow[] = [];
  const docOf = new Map<number, string>();
  const baseRss = rssMb();
  let modelRss: number | null = null;
  const embeddedAhead = { chunks: 0, failed: 0 };
  let embedAhead: ReturnType<typeof startEmbedAhead>;
  try {
    let stored = options.continueFile ? continueScaleFile(gllam, corpus, path) : 0;
    if (stored >= sizes[0]!) throw new GllamError("E_BAD_INPUT", `${path} holds ${stored} turns already: --sizes must be larger`);
    // The model tier's sample is given its vectors once, in the file's first size.
    const fillModelSample = stored === 0;
    for (const size of sizes) {
      const before = stored;
      // A worker per size's ingest, closed before the queries, as `gllam ingest` closes its own: kept
      // alive, its heap and static table counted in every query phase's RSS (~120 MB at 1M).
      embedAhead = startEmbedAhead(options.staticEmbedder);
      let wall = 0;
      let cpu = 0;
      resetPeakRss();
      // Chunk N+1 is parsed and sent to the embedding worker before chunk N is written (ingest's
      // pipeline, embed-ahead.ts); the wait for its vectors counts as ingest time, the worker's CPU
      // too. Building the corpus's turns (corpusSlice) is the bench's own work: outside the clock.
      const turnsFrom = (from: number) => corpusSlice(corpus, from, Math.min(size, from + INGEST_CHUNK));
      const parse = (units: ReturnType<typeof corpusSlice>) => {
        const batches = parseUnits(units);
        return { batches, ahead: embedAhead?.embed(gllam.store.db(), batches) };
      };
      let next = stored < size ? parse(turnsFrom(stored)) : undefined;
      while (next) {
        const to = Math.min(size, stored + INGEST_CHUNK);
        const following = to < size ? turnsFrom(to) : undefined;
        const started = performance.now();
        const cpuStart = process.cpuUsage();
        const { batches, ahead } = next;
        const staticAhead = await ahead;
        next = following && parse(following);
        writeBatches(gllam.store, batches, { staticEmbedder: options.staticEmbedder, staticAhead });
        if (Math.floor(to / 100_000) > Math.floor(stored / 100_000)) gllam.checkpointWAL("TRUNCATE");
        wall += (performance.now() - started) / 1000;
        cpu += cpuSeconds(cpuStart);
        stored = to;
        if (stored % 50_000 === 0) options.onProgress?.(`ingested ${stored.toLocaleString("en")} turns`);
      }
      // The writer's cached pages freed, as at the end of `gllam ingest`: else the queries' phases count them.
      releaseWriterCache(gllam.store);
      const added = size - before;
      embeddedAhead.chunks += embedAhead?.answered ?? 0;
      embeddedAhead.failed += embedAhead?.failed ?? 0;
      await embedAhead?.close();
      embedAhead = undefined;
      gllam.checkpointWAL("TRUNCATE");
      const ingestPeak = peakRssMb();
      resetPeakRss();
      const row = await measureSize(gllam, sets, docOf, options);
      let modelRecall: number | null = null;
      if (options.modelEmbedder) {
        // The queries' garbage (the KNN's chunk copies, ~0.2 GB at 1M) collected before the model's
        // worker starts, as before every other phase: else the worker's memory is counted on top of it.
        Bun.gc(true);
        const model = await measureModelTier(gllam, options.modelEmbedder, options, questions, fillModelSample && rows.length === 0);
        modelRecall = model.p50;
        modelRss ??= model.rssAdded;
      }
      rows.push({
        episodes: size,
        ingest_turns_per_s: Math.round(added / wall),
        ingest_turns_per_cpu_s: Math.round(added / cpu),
        db_bytes: statSync(path).size + (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0),
        ...row,
        model_recall_p50_ms: modelRecall,
        ingest_peak_rss_mb: ingestPeak,
        query_peak_rss_mb: peakRssMb(),
        peak_rss_mb: Math.max(peakRssMb(), ...rows.map((r) => r.peak_rss_mb), ingestPeak),
        ...rssSplitMb(),
      });
      options.onProgress?.(JSON.stringify(rows.at(-1)));
    }
    return { sizes: rows, peak_rss_mb: Math.max(...rows.map((r) => r.peak_rss_mb)), base_rss_mb: baseRss, model_rss_mb: modelRss, turns_per_copy: corpus.turnsPerCopy, questions: questions.length, questions_warm: sets.warm.length, questions_new: sets.fresh.length, static_embedder: options.staticEmbedder.modelVersion, model_sample: options.modelEmbedder ? options.modelSample : 0, embedded_ahead: embeddedAhead, mimalloc_purge_delay: process.env.MIMALLOC_PURGE_DELAY ?? null, process_per_size: false };
  } finally {
    await embedAhead?.close();
    gllam.close();
    file.remove();
  }
}

const LEXICAL = { denseWeight: 0, staticWeight: 0, staticAloneWeight: 0 };

/**
 * Recall with the model tier, on the same engine (its reader warm from the static measures, as one
 * server's would be), the model in a worker (when the embedder can be rebuilt in one: the bundled
 * model can) terminated after: the model's memory (~0.2 GB in a worker, 0.56 GB on this thread)
 * goes with it, and the next phases measure the process without it. The first call gives the first
 * `modelSample` episodes model vectors, and reports what that added to RSS.
 */
async function measureModelTier(gllam: Gllam, embedder: Embedder, options: ScaleBenchOptions, questions: Question[], fillSample: boolean) {
  const pooled = poolEmbedder(embedder, { workers: 1 });
  const model = pooled ?? embedder;
  const tiers = { model, static: options.staticEmbedder };
  try {
    let rssAdded: number | null = null;
    if (fillSample) {
      options.onProgress?.(`model vectors for the first ${options.modelSample} episodes`);
      const before = rssMb();
      for (let after = 0, left = options.modelSample; left > 0; ) {
        const done = await processUnembeddedBatch(gllam.store, model, Math.min(64, left), after);
        if (done.length === 0) break;
        left -= done.length;
        after = done.at(-1)!.id;
      }
      rssAdded = rssMb() - before;
    }
    // Untimed first: the worker loads the model on its first embed.
    for (const q of questions.slice(0, 2)) await recall(gllam.store, tiers, q.text);
    const times = await timeEach(questions.slice(0, 50), (q) => recall(gllam.store, tiers, q.text));
    return { p50: times.length > 0 ? round(percentile(times, 50), 2) : null, rssAdded };
  } finally {
    await pooled?.close();
  }
}

export async function measureSize(gllam: Gllam, sets: QuestionSets, docOf: Map<number, string>, options: Pick<ScaleBenchOptions, "staticEmbedder">) {
  const questions = sets.asked;
  // One untimed pass first: the page cache then holds what a warm server would.
  for (const q of questions.slice(0, 5)) await gllam.recall(q.text);
  const recall = await timeEach(questions, (q) => gllam.recall(q.text));
  const again = await timeEach(questions, (q) => gllam.recall(q.text));
  for (const q of sets.warm) await gllam.recall(q.text);
  const fresh = await timeEach(sets.fresh, (q) => gllam.recall(q.text));
  const lexical = await timeEach(questions, (q) => gllam.searchEpisodes(q.text, { tuning: LEXICAL }));

  const db = gllam.dbRO();
  const scope = "default";
  const vectors = options.staticEmbedder.embedSync(questions.map((q) => q.text));
  const knn: number[] = [];
  const knn100: number[] = [];
  const exact: number[] = [];
  const scores = { approx: [] as number[], exact: [] as number[], overlap: [] as number[] };
  const docsOf = (ids: number[]) => {
    const missing = ids.filter((id) => !docOf.has(id));
    for (const episode of gllam.store.dbRO().query<{ id: number; doc: string }, [string]>("SELECT id, metadata ->> '$.doc' AS doc FROM episodes WHERE id IN (SELECT value FROM json_each(?))").all(JSON.stringify(missing))) {
      docOf.set(episode.id, episode.doc);
    }
    return ids.map((id) => docOf.get(id)!);
  };
  for (const [i, q] of questions.entries()) {
    let started = performance.now();
    const approxIds = knnStaticEpisodes(db, vectors[i]!, 10, scope).map((hit) => hit.episodeId);
    knn.push(performance.now() - started);
    started = performance.now();
    knnStaticEpisodes(db, vectors[i]!, 100, scope);
    knn100.push(performance.now() - started);
    started = performance.now();
    const exactIds = exactStaticEpisodes(db, vectors[i]!, 10, scope).map((hit) => hit.episodeId);
    exact.push(performance.now() - started);
    scores.approx.push(recallAtK(docsOf(approxIds), q.relevant, 10));
    scores.exact.push(recallAtK(docsOf(exactIds), q.relevant, 10));
    scores.overlap.push(recallAtK(approxIds, new Set(exactIds), 10));
  }
  return {
    recall_p50_ms: round(percentile(recall, 50), 2),
    recall_p95_ms: round(percentile(recall, 95), 2),
    recall_again_p50_ms: round(percentile(again, 50), 2),
    recall_again_p95_ms: round(percentile(again, 95), 2),
    recall_new_p50_ms: fresh.length > 0 ? round(percentile(fresh, 50), 2) : null,
    recall_new_p95_ms: fresh.length > 0 ? round(percentile(fresh, 95), 2) : null,
    lexical_p50_ms: round(percentile(lexical, 50), 2),
    knn_p50_ms: round(percentile(knn, 50), 2),
    knn_k100_p50_ms: round(percentile(knn100, 50), 2),
    knn_exact_p50_ms: round(percentile(exact, 50), 2),
    knn_recall_at_10: round(mean(scores.approx)),
    knn_exact_recall_at_10: round(mean(scores.exact)),
    knn_overlap_at_10: round(mean(scores.overlap)),
  };
}

export { docKeyOf };
