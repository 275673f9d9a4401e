import { defineCommand } from "citty";
import { parseInput } from "../../memory/parse.ts";
import { globalArgs, withEngine } from "../context.ts";
import { CountArgSchema } from "./ingest.ts";

export const reembedCommand = defineCommand({
  meta: {
    name: "reembed",
    description:
      "Give every node and episode a vector from the active embedders: fills gaps; after a model change (or --force) builds the new vectors beside the old and swaps them in at the end (resumable)",
  },
  args: {
    force: { type: "boolean", description: "Re-embed everything even if the model did not change" },
    workers: { type: "string", description: "Embedding workers (default 2)", valueHint: "n" },
    ...globalArgs,
  },
  run: ({ args }) => {
    const workers = args.workers === undefined ? 2 : parseInput(CountArgSchema, args.workers, "--workers");
    return withEngine(args, { create: false, quietDrift: true, staticTable: true }, async (gllam) => {
      const tty = process.stdout.isTTY === true;
      const check = gllam.checkEmbeddingModelVersion();
      if (check.drift) console.log(`vector space drift: stored vectors come from ${check.previousModel}, the active embedder is ${check.activeModel}; re-embedding everything`);
      let phase: string | undefined;
      const tierName = (tier: string) => (tier === "static" ? "static " : "");
      const report = await gllam.reembedAllSemanticNodes({
        force: args.force,
        concurrency: workers,
        onProgress: (p) => {
          if (!tty) return;
          const now = `${tierName(p.tier)}${p.phase}`;
          if (phase && phase !== now) process.stdout.write("\n");
          phase = now;
          // The swap is one transaction (the new vectors and the large scopes' cells): a line saying so, not a percentage.
          if (p.phase === "swap") process.stdout.write(`\rswapping in the new ${tierName(p.tier)}vectors (one transaction; the cells of scopes past 50K episodes are cut again)\x1b[K`);
          else process.stdout.write(`\rembedded ${p.done}/${p.total} ${now} (${Math.floor((100 * p.done) / Math.max(1, p.total))}%)\x1b[K`);
        },
      });
      if (tty && phase) process.stdout.write("\n");
      if (report.resumed) console.log("resumed an interrupted re-embedding");
      const change = report.reset ? `re-embedded everything (${report.previousModel ?? "no model"} -> ${report.model})` : `filled missing vectors (${report.model})`;
      console.log(`${change}: ${report.nodes} nodes, ${report.episodes} episodes`);
      if (gllam.staticEmbedder) {
        const how = report.staticReset ? "rebuilt the static tier" : "filled missing static vectors";
        console.log(`${how} (${gllam.staticEmbedder.modelVersion}): ${report.staticNodes} nodes, ${report.staticEpisodes} episodes`);
      }
    });
  },
});
