import { defineCommand, type CommandDef } from "citty";
import { extractBenchCommand } from "../../bench/extract.ts";
import { graphBenchCommand } from "../../bench/graph.ts";
import { serveBenchCommand } from "../../bench/serve.ts";
import { taxonomyBenchCommand } from "../../bench/taxonomy.ts";
import { benchContextCommand } from "./bench-context.ts";
import { benchPlannerCommand } from "./bench-planner.ts";
import { benchPoolCommand } from "./bench-pool.ts";
import { benchRetrievalCommand } from "./bench-retrieval.ts";
import { benchScaleCommand } from "./bench-scale.ts";

/**
 * `gllam bench <name>`: the benchmark drivers compiled into the binary (src/bench/). Each memory
 * layer adds its driver here; bench/<name>/run.sh runs them on the shared data.
 */
export const benchSubCommands: Record<string, CommandDef<any>> = {
  retrieval: benchRetrievalCommand,
  context: benchContextCommand,
  graph: graphBenchCommand,
  planner: benchPlannerCommand,
  taxonomy: taxonomyBenchCommand,
  serve: serveBenchCommand,
  scale: benchScaleCommand,
  pool: benchPoolCommand,
  extract: extractBenchCommand,
};

export const benchCommand = defineCommand({
  meta: { name: "bench", description: "Run a benchmark driver and print or write its JSON figures" },
  subCommands: benchSubCommands,
});
