import { defineCommand } from "citty";
import { intArg } from "../../bench/args.ts";
import { runPoolBench } from "../../bench/pool.ts";
import { GllamError } from "../../engine/errors.ts";
import { createLocalModelEmbedder } from "../../embed/local-model.ts";

export const benchPoolCommand = defineCommand({
  meta: { name: "pool", description: "The bundled model's embedding rate on this thread and through the worker pool (1, 2, ... workers), wall and per CPU-second" },
  args: {
    data: { type: "string", description: "LoCoMo JSON file whose turns are embedded", required: true, valueHint: "path" },
    workers: { type: "string", description: "Worker counts to measure (default 1,2)", valueHint: "list" },
    texts: { type: "string", description: "Turns embedded per measurement (default 512)", valueHint: "n" },
    chunk: { type: "string", description: "Texts per message to a worker (default the pool's, 32)", valueHint: "n" },
    json: { type: "string", description: "Also write the figures to this file", valueHint: "path" },
  },
  run: async ({ args }) => {
    const workers = (args.workers ?? "1,2").split(",").map((part) => intArg(part.trim(), 1, "--workers"));
    if (workers.some((n) => n > 64)) throw new GllamError("E_BAD_INPUT", "--workers must be at most 64");
    const embedder = createLocalModelEmbedder();
    const result = await runPoolBench({
      data: args.data,
      embedder: { ...embedder, spec: embedder.spec!, embed: (texts) => embedder.embed(texts) },
      workers,
      texts: intArg(args.texts, 512, "--texts"),
      chunkSize: args.chunk === undefined ? undefined : intArg(args.chunk, 32, "--chunk"),
    });
    const text = JSON.stringify(result, null, 2);
    if (args.json) await Bun.write(args.json, `${text}\n`);
    console.log(text);
  },
});
