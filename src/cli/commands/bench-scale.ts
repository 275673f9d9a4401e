import { defineCommand } from "citty";
import { intArg } from "../../bench/args.ts";
import { runScaleBench } from "../../bench/scale.ts";
import { writeScalePlot } from "../../bench/scale-plot.ts";
import { runScaleBenchPerSize } from "../../bench/scale-processes.ts";
import { GllamError } from "../../engine/errors.ts";
import { createLocalModelEmbedder } from "../../embed/local-model.ts";
import { ensureStaticTableNoisily, loadStaticEmbedder } from "../../gllam/open.ts";

/** "10000,100000,1000000" (or 10k, 1m) as sizes. */
export function parseSizes(text: string): number[] {
  const sizes = text.split(",").map((part) => {
    const match = /^\s*(\d+(?:\.\d+)?)\s*([km]?)\s*$/i.exec(part);
    const n = match ? Number(match[1]) * { "": 1, k: 1e3, m: 1e6 }[match[2]!.toLowerCase() as "" | "k" | "m"] : Number.NaN;
    if (!Number.isInteger(n) || n < 1) throw new GllamError("E_BAD_INPUT", `--sizes must be whole numbers separated by commas (10000,100000 or 10k,1m), got "${part}"`);
    return n;
  });
  return [...new Set(sizes)];
}

export const benchScaleCommand = defineCommand({
  meta: { name: "scale", description: "Recall, ingest and file size as one scope grows (10K to 1M turns replicated from a LoCoMo file); --plot draws them" },
  args: {
    data: { type: "string", description: "LoCoMo JSON file whose conversations are replicated", required: true, valueHint: "path" },
    sizes: { type: "string", description: "Episode counts to measure at (default 10000,100000,1000000)", valueHint: "list" },
    queries: { type: "string", description: "Questions asked at each size (default 200), twice; then as many new ones", valueHint: "n" },
    warm: { type: "string", description: "Other questions asked before the new ones are timed (default 300; 0: none)", valueHint: "n" },
    "model-sample": { type: "string", description: "Episodes given model vectors for model_recall (default 512; 0: none, the model is not loaded)", valueHint: "n" },
    json: { type: "string", description: "Also write the figures to this file", valueHint: "path" },
    plot: { type: "string", description: "Write an SVG of latency and ingest rate against size here", valueHint: "path" },
    db: { type: "string", description: "Keep the benchmark's database in this new file (default: a temporary one, removed after)", valueHint: "path" },
    continue: { type: "boolean", description: "Grow the --db file, which this benchmark built from the same --data, to the sizes given" },
    "process-per-size": { type: "boolean", description: "Measure each size in a process of its own (default: all in this one, each size's memory figures then including what the smaller sizes left)" },
  },
  run: async ({ args }) => {
    const common = {
      data: args.data,
      sizes: parseSizes(args.sizes ?? "10000,100000,1000000"),
      queries: intArg(args.queries, 200, "--queries"),
      warm: intArg(args.warm, 300, "--warm", 0),
      modelSample: intArg(args["model-sample"], 512, "--model-sample", 0),
      db: args.db,
      continueFile: args.continue === true,
    };
    const result = args["process-per-size"]
      ? await runScaleBenchPerSize(common)
      : await runScaleBench({
          ...common,
          staticEmbedder: loadStaticEmbedder(await ensureStaticTableNoisily()),
          modelEmbedder: common.modelSample > 0 ? createLocalModelEmbedder() : undefined,
          onProgress: (line) => console.error(line),
        });
    const text = JSON.stringify(result, null, 2);
    if (args.json) await Bun.write(args.json, `${text}\n`);
    if (args.plot) await Bun.write(args.plot, writeScalePlot(result));
    console.log(text);
  },
});
