import { defineCommand } from "citty";
import { globalArgs, withEngine } from "../context.ts";

export const seedCommand = defineCommand({
  meta: { name: "seed", description: "Write the sample memory (the seed walk-through's home-lab graph) and embed its nodes" },
  args: { ...globalArgs },
  run: ({ args }) =>
    withEngine(args, { create: true }, async (gllam) => {
      const report = await gllam.seedSampleMemory();
      console.log(
        `seeded ${gllam.path}: ${report.nodes} nodes, ${report.linksInserted} new links` +
          (report.linksDeduplicated > 0 ? `, ${report.linksDeduplicated} already known` : "") +
          `, ${report.embedded} vectors (${gllam.embedder.modelVersion})`,
      );
    }),
});
