import { defineCommand } from "citty";
import { stats } from "../../gllam/operations.ts";
import { globalArgs, withEngine } from "../context.ts";

export const statsCommand = defineCommand({
  meta: { name: "stats", description: "Row counts per table, file and WAL size, embedding model and dimensions" },
  args: { json: { type: "boolean", description: "Print the figures as JSON" }, ...globalArgs },
  run: ({ args }) =>
    withEngine(args, { readOnly: true }, async (gllam) => {
      const result = await stats.run(gllam, {});
      console.log(args.json ? JSON.stringify(result, null, 2) : stats.toText(result));
    }),
});
