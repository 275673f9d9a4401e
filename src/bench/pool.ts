/**
 * `gllam bench pool`: the model tier's throughput on this thread against the worker pool's, on
 * real turns. Every worker loads its model before the clock starts (a pool measured cold counts
 * model loads as embedding time). Wall rates depend on what else the machine runs; the CPU-second
 * rates (all threads of this process) say how much work each path spends per turn.
 */
import { GllamError } from "../engine/errors.ts";
import type { Embedder, EmbedderSpec } from "../embed/embedder.ts";
import { createPooledEmbedder } from "../embed/worker-pool.ts";
import { parseJsonText } from "../episodic/formats/json-text.ts";
import { parseLocomo } from "../episodic/formats/locomo.ts";
import { collectUnits } from "../episodic/formats/source.ts";
import { episodeEmbeddingText } from "../episodic/vectors.ts";
import { round } from "./metrics.ts";

export type PoolBenchOptions = { data: string; embedder: Embedder & { spec: EmbedderSpec }; workers: number[]; texts: number; chunkSize?: number };

export type PoolBenchRow = { workers: number; turns_per_s: number; turns_per_cpu_s: number; per_worker_vs_in_process: number };
export type PoolBenchResult = { texts: number; chunk_size: number; in_process: { turns_per_s: number; turns_per_cpu_s: number }; pool: PoolBenchRow[]; cpus: number };

async function timed(embed: (texts: string[]) => Promise<unknown>, texts: string[]) {
  const started = performance.now();
  const cpu = process.cpuUsage();
  await embed(texts);
  const used = process.cpuUsage(cpu);
  return { turnsPerS: texts.length / ((performance.now() - started) / 1000), turnsPerCpuS: texts.length / ((used.user + used.system) / 1e6) };
}

export async function runPoolBench(options: PoolBenchOptions): Promise<PoolBenchResult> {
  const text = await Bun.file(options.data).text().catch(() => {
    throw new GllamError("E_NOT_FOUND", `cannot read benchmark data ${options.data}`);
  });
  const turns = collectUnits(parseLocomo(parseJsonText(text, options.data), { file: options.data }))
    .flatMap((unit) => unit.episodes)
    .map((e) => episodeEmbeddingText({ speaker: e.speaker ?? "", content: e.content }));
  const texts = turns.slice(0, options.texts);
  if (texts.length === 0) throw new GllamError("E_BAD_INPUT", `${options.data} holds no turns`);
  const chunkSize = options.chunkSize ?? 32;
  const { embedder } = options;
  await embedder.embed(texts.slice(0, 8));
  const inProcess = await timed((t) => embedder.embed(t), texts);
  const pool: PoolBenchRow[] = [];
  for (const workers of options.workers) {
    const pooled = createPooledEmbedder({ ...embedder, spec: embedder.spec, embed: (t) => embedder.embed(t) }, { workers, chunkSize });
    try {
      // One chunk per worker, at once: every worker has its model loaded before the clock starts.
      await pooled.embed(turns.slice(-workers * chunkSize));
      const rate = await timed((t) => pooled.embed(t), texts);
      pool.push({ workers, turns_per_s: round(rate.turnsPerS, 1), turns_per_cpu_s: round(rate.turnsPerCpuS, 1), per_worker_vs_in_process: round(rate.turnsPerS / workers / inProcess.turnsPerS, 3) });
    } finally {
      pooled.close();
    }
  }
  return {
    texts: texts.length,
    chunk_size: chunkSize,
    in_process: { turns_per_s: round(inProcess.turnsPerS, 1), turns_per_cpu_s: round(inProcess.turnsPerCpuS, 1) },
    pool,
    cpus: navigator.hardwareConcurrency,
  };
}
