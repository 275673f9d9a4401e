/**
 * `gllam bench scale --process-per-size`: a process per size grows the same file to that size
 * (`--continue`) and measures it, so each size's memory and first-pass figures are those of a
 * process that ingested and queried that much. In one process the larger sizes' figures also hold
 * what the smaller sizes' phases left (the allocator keeps freed memory, src/cli/allocator.ts: at
 * 1M the ingest peaked at ~890 MB after the 10K and 100K phases, ~650 in a process of its own).
 */
import { GllamError } from "../engine/errors.ts";
import { selfCommand } from "./args.ts";
import { readScaleData, type ScaleBenchOptions, type ScaleBenchResult, scaleFile } from "./scale.ts";

/** What the processes are told: the options a command line carries (each loads its own embedders). */
export type ScaleProcessOptions = Pick<ScaleBenchOptions, "data" | "sizes" | "queries" | "warm" | "modelSample" | "db" | "continueFile">;

/** The command line of the process that grows the file to `size` and measures it. */
export function sizeProcessArgv(options: ScaleProcessOptions, size: number, db: string, continueFile: boolean): string[] {
  const flags = ["--data", options.data, "--sizes", String(size), "--queries", String(options.queries), "--warm", String(options.warm), "--model-sample", String(options.modelSample), "--db", db];
  return ["bench", "scale", ...flags, ...(continueFile ? ["--continue"] : [])];
}

/** The sizes' results as one: rows in order, the peak the largest, counts added; the rest is the first process's. */
export function mergeScaleResults(results: ScaleBenchResult[]): ScaleBenchResult {
  const [first] = results;
  if (!first) throw new GllamError("E_BAD_INPUT", "no sizes were measured");
  return {
    ...first,
    sizes: results.flatMap((result) => result.sizes),
    peak_rss_mb: Math.max(...results.map((result) => result.peak_rss_mb)),
    model_rss_mb: results.find((result) => result.model_rss_mb !== null)?.model_rss_mb ?? null,
    embedded_ahead: { chunks: results.reduce((n, result) => n + result.embedded_ahead.chunks, 0), failed: results.reduce((n, result) => n + result.embedded_ahead.failed, 0) },
    process_per_size: true,
  };
}

export async function runScaleBenchPerSize(options: ScaleProcessOptions): Promise<ScaleBenchResult> {
  // The data is read here first, so a bad file is refused once, before any process starts.
  await readScaleData(options.data, options.queries, options.warm);
  const file = scaleFile(options.db, options.continueFile === true);
  const results: ScaleBenchResult[] = [];
  try {
    for (const [i, size] of [...options.sizes].sort((a, b) => a - b).entries()) {
      // Its progress and errors go to this process's stderr; its figures come back as JSON on stdout.
      const child = Bun.spawn([...selfCommand(), ...sizeProcessArgv(options, size, file.path, i > 0 || options.continueFile === true)], { stdout: "pipe", stderr: "inherit", stdin: "ignore" });
      const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
      if (code !== 0) throw new GllamError("E_INTERNAL", `bench scale at ${size.toLocaleString("en")} episodes: its process exited with code ${code} (its error is above)`);
      results.push(JSON.parse(out) as ScaleBenchResult);
    }
    return mergeScaleResults(results);
  } finally {
    file.remove();
  }
}
