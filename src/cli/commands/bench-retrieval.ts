import { defineCommand } from "citty";
import * as v from "valibot";
import { BENCH_DATASETS, runRetrievalBench } from "../../bench/retrieval.ts";
import { GllamError } from "../../engine/errors.ts";
import { parseInput } from "../../memory/parse.ts";
import { chooseTiers, ensureStaticTableNoisily, loadStaticEmbedder } from "../../gllam/open.ts";
import { globalArgs, settingsOf } from "../context.ts";

const TuningSchema = v.partial(
  v.strictObject({
    rrfK: v.pipe(v.number(), v.minValue(0)),
    bm25Weight: v.pipe(v.number(), v.minValue(0)),
    contextWeight: v.pipe(v.number(), v.minValue(0)),
    speakerBoost: v.pipe(v.number(), v.minValue(0)),
    denseWeight: v.pipe(v.number(), v.minValue(0)),
    staticWeight: v.pipe(v.number(), v.minValue(0)),
    staticAloneWeight: v.pipe(v.number(), v.minValue(0)),
    neighbourWeight: v.pipe(v.number(), v.minValue(0)),
    candidates: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(4096)),
  }),
);

function parseTuning(text: string | undefined) {
  if (text === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new GllamError("E_BAD_INPUT", `--tuning must be JSON, like '{"denseWeight":0.5}'`);
  }
  return parseInput(TuningSchema, json, "--tuning");
}

/** The flags naming a benchmark's data set and file. */
export const benchDatasetArgs = {
  dataset: { type: "string", description: BENCH_DATASETS.join(" | "), required: true, valueHint: "name" },
  data: { type: "string", description: "The benchmark's JSON file (BEAM: its folder of chats, e.g. 100K/)", required: true, valueHint: "path" },
  json: { type: "string", description: "Also write the figures as JSON here", valueHint: "path" },
} as const;

export const parseBenchDataset = (value: string) => parseInput(v.picklist(BENCH_DATASETS, `must be one of ${BENCH_DATASETS.join(", ")}`), value, "--dataset");

export const benchRetrievalCommand = defineCommand({
  meta: {
    name: "retrieval",
    description: "Recall quality and speed on LoCoMo or BEAM (turn level) or LongMemEval_S (session level): each tier alone, BM25 alone and the fusions (--embedder picks the tiers)",
  },
  args: {
    ...benchDatasetArgs,
    workers: { type: "string", description: "Embedding workers (default 2)", valueHint: "n" },
    "bm25-only": { type: "boolean", description: "Lexical retrieval only: embed nothing" },
    cache: { type: "string", description: "Vector cache file (default ~/.cache/gllam/vector-cache.sqlite; '' for none)", valueHint: "path" },
    tuning: { type: "string", description: "Fusion settings as JSON: rrfK, bm25Weight, contextWeight, denseWeight, staticWeight, staticAloneWeight, neighbourWeight, speakerBoost, candidates", valueHint: "json" },
    limit: { type: "string", description: "Only the first N conversations / questions", valueHint: "n" },
    ...globalArgs,
  },
  run: async ({ args }) => {
    const dataset = parseBenchDataset(args.dataset);
    const count = (value: string | undefined, name: string) => (value === undefined ? undefined : parseInput(v.pipe(v.string(), v.toNumber(), v.integer(), v.minValue(1)), value, name));
    const tiers = await chooseTiers(settingsOf(args));
    const result = await runRetrievalBench({
      dataset,
      data: args.data,
      embedder: tiers.name === "static" ? undefined : tiers.embedder,
      staticEmbedder: tiers.staticEmbedder ?? loadStaticEmbedder(await ensureStaticTableNoisily()),
      workers: count(args.workers, "--workers"),
      dense: !args["bm25-only"],
      cachePath: args.cache,
      tuning: parseTuning(args.tuning),
      limit: count(args.limit, "--limit"),
      onProgress: (message) => process.stderr.isTTY && process.stderr.write(`\r${message}\x1b[K`),
    });
    if (process.stderr.isTTY) process.stderr.write("\n");
    const text = JSON.stringify(result, null, 2);
    if (args.json) await Bun.write(args.json, `${text}\n`);
    console.log(text);
  },
});
