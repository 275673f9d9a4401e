import { defineCommand } from "citty";
import { parseInput } from "../../memory/parse.ts";
import { globalArgs, withEngine } from "../context.ts";
import { CountArgSchema } from "./ingest.ts";

export const reembedCommand = defineCommand({
  meta: {
    name: "reembed",
    description: "Give every node and episode a vector from the active embedder: fills gaps, and re-embeds everything after a model change",
  },
  args: {
    force: { type: "boolean", description: "Re-embed everything even if the model did not change" },
    workers: { type: "string", description: "Embedding workers (default 2)", valueHint: "n" },
    ...globalArgs,
  },
  run: ({ args }) => {
    const workers = args.workers === undefined ? 2 : parseInput(CountArgSchema, args.workers, "--workers");
    return withEngine(args, { create: false }, async (gllam) => {
      const tty = process.stdout.isTTY === true;
      gllam.startEmbeddingWorkerPool(workers);
      const report = await gllam.reembedAll({
        force: args.force,
        concurrency: workers,
        onProgress: (done, remaining) => tty && process.stdout.write(`\rembedded ${done} episodes, ${remaining} to go\x1b[K`),
      });
      if (tty) process.stdout.write("\n");
      const change = report.reset ? `re-embedded everything (${report.previousModel ?? "no model"} -> ${report.model})` : `filled missing vectors (${report.model})`;
      console.log(`${change}: ${report.nodes} nodes, ${report.episodes} episodes`);
    });
  },
});
