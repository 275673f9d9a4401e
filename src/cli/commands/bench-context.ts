import { defineCommand } from "citty";
import { intArg, reportBenchResult } from "../../bench/args.ts";
import { runContextBench } from "../../bench/context.ts";
import { chooseTiers, ensureStaticTableNoisily, loadStaticEmbedder } from "../../gllam/open.ts";
import { globalArgs, settingsOf } from "../context.ts";
import { benchDatasetArgs, parseBenchDataset } from "./bench-retrieval.ts";

export const benchContextCommand = defineCommand({
  meta: {
    name: "context",
    description: "Evidence recall of the assembled context at a token budget on LoCoMo and BEAM (evidence turns) or LongMemEval_S (evidence sessions), with context size and assembly time",
  },
  args: {
    ...benchDatasetArgs,
    budget: { type: "string", description: "Context budget in tokens (characters / 4; default 1500)", valueHint: "tokens" },
    limit: { type: "string", description: "Only the first N conversations / questions", valueHint: "n" },
    "one-database": { type: "boolean", description: "Ingest every conversation / haystack into one database (latency at scale; the others' turns become distractors)" },
    repeat: { type: "string", description: "Ask each database's questions N times over, every assembly timed (steadier percentiles; default 1)", valueHint: "n" },
    ...globalArgs,
  },
  run: async ({ args }) => {
    const dataset = parseBenchDataset(args.dataset);
    // The static tier unless another is asked for: the goal is set for it, and model vectors of every haystack take an hour here.
    const tiers = await chooseTiers({ ...settingsOf(args), embedder: args.embedder ?? "static" });
    const result = await runContextBench({
      dataset,
      data: args.data,
      budget: intArg(args.budget, 1500, "--budget", 100),
      embedder: tiers.name === "static" ? undefined : tiers.embedder,
      staticEmbedder: tiers.staticEmbedder ?? loadStaticEmbedder(await ensureStaticTableNoisily()),
      limit: args.limit === undefined ? undefined : intArg(args.limit, 0, "--limit"),
      oneDatabase: args["one-database"] === true,
      repeat: intArg(args.repeat, 1, "--repeat", 1),
      onProgress: (message) => process.stderr.isTTY && process.stderr.write(`\r${message}\x1b[K`),
    });
    if (process.stderr.isTTY) process.stderr.write("\n");
    await reportBenchResult(result, args.json);
  },
});
