import { describe, expect, test } from "bun:test";
import { mergeScaleResults, sizeProcessArgv } from "../../src/bench/scale-processes.ts";
import type { ScaleBenchResult, ScaleRow } from "../../src/bench/scale.ts";

const row = (episodes: number, peak: number) => ({ episodes, peak_rss_mb: peak }) as ScaleRow;
const result = (rows: ScaleRow[], fields: Partial<ScaleBenchResult>): ScaleBenchResult => ({
  sizes: rows, peak_rss_mb: Math.max(...rows.map((r) => r.peak_rss_mb)), base_rss_mb: 90, model_rss_mb: null, turns_per_copy: 3, questions: 2, questions_warm: 1, questions_new: 1,
  static_embedder: "s", model_sample: 4, embedded_ahead: { chunks: 1, failed: 0 }, mimalloc_purge_delay: "-1", process_per_size: false, ...fields,
});

describe("a process per size", () => {
  test("the results merge: rows in order, the largest peak, the first model figure, the chunks added up", () => {
    const merged = mergeScaleResults([
      result([row(10, 300)], { model_rss_mb: 120, base_rss_mb: 91, embedded_ahead: { chunks: 2, failed: 0 } }),
      result([row(100, 700)], { embedded_ahead: { chunks: 18, failed: 1 } }),
      result([row(1000, 650)], { model_rss_mb: 5, embedded_ahead: { chunks: 180, failed: 0 } }),
    ]);
    expect(merged.sizes.map((r) => r.episodes)).toEqual([10, 100, 1000]);
    expect(merged).toMatchObject({ peak_rss_mb: 700, model_rss_mb: 120, base_rss_mb: 91, embedded_ahead: { chunks: 200, failed: 1 }, process_per_size: true });
  });

  test("no model figure when no process loaded the model; nothing measured is refused", () => {
    expect(mergeScaleResults([result([row(10, 1)], {}), result([row(20, 2)], {})]).model_rss_mb).toBeNull();
    expect(() => mergeScaleResults([])).toThrow(/no sizes/);
  });

  test.each([
    [0, false, []],
    [1, true, ["--continue"]],
  ] as const)("size %p's process: one size, on the shared file", (_, continueFile, tail) => {
    const argv = sizeProcessArgv({ data: "d.json", sizes: [10, 20], queries: 5, warm: 3, modelSample: 4 }, 20, "/tmp/x.db", continueFile);
    expect(argv).toEqual(["bench", "scale", "--data", "d.json", "--sizes", "20", "--queries", "5", "--warm", "3", "--model-sample", "4", "--db", "/tmp/x.db", ...tail]);
  });
});
