import { defineCommand } from "citty";
import { globalArgs, withEngine } from "../context.ts";

export const importCommand = defineCommand({
  meta: {
    name: "import",
    description: "Restore a `gllam export` file in one transaction (ids kept; a scope that already holds memory here is refused); vectors recomputed, or carried with --with-vectors",
  },
  args: {
    file: { type: "positional", description: "The export file (JSONL)", required: true },
    "with-vectors": { type: "boolean", description: "Write the vectors the file carries (they must come from the active embedders) instead of recomputing them" },
    json: { type: "boolean", description: "Print the report as JSON" },
    ...globalArgs,
  },
  run: ({ args }) =>
    withEngine(args, { create: true, staticTable: true }, async (gllam) => {
      const report = await gllam.importMemory(String(args.file), { withVectors: args["with-vectors"] });
      if (args.json) return console.log(JSON.stringify(report, null, 2));
      const records = Object.entries(report.records).map(([record, n]) => `${record} ${n}`);
      console.log(`imported ${report.file} into ${gllam.path}: ${records.join(", ") || "nothing"} (scopes: ${report.scopes.join(", ") || "none"})`);
      if (report.carriedVectors > 0) console.log(`${report.carriedVectors} vectors carried from the file`);
      if (report.ignoredVectors > 0) console.log(`${report.ignoredVectors} vectors in the file left out and recomputed (--with-vectors carries them)`);
      if (report.staticVectors > 0) console.log(`static vectors computed for ${report.staticVectors} episodes`);
      if (gllam.tiers.model && report.queued > 0) console.log(`${report.queued} episodes and nodes await model vectors (\`gllam reembed\` fills them)`);
    }),
});
