import { defineCommand } from "citty";
import * as v from "valibot";
import { BENCH_PLANNERS, formatPlannerTable, runPlannerBench } from "../../bench/planner.ts";
import { parseInput } from "../../memory/parse.ts";
import { PlanSettingsSchema } from "../../gllam/operations/tools.ts";
import { writeOutputFile } from "../../gllam/types.ts";
import { numberFlag } from "./recall.ts";

const FlagsSchema = v.object({
  planner: v.optional(v.picklist(BENCH_PLANNERS, `must be one of ${BENCH_PLANNERS.join(", ")}`), "native"),
  timeout: PlanSettingsSchema.entries.timeout,
});

export const benchPlannerCommand = defineCommand({
  meta: { name: "planner", description: "Solve every instance of a PDDL suite (DIR/<domain>/domain.pddl + problems) and report solved counts and medians" },
  args: {
    suite: { type: "string", description: "Suite folder: DIR/<domain>/domain.pddl plus problem files", valueHint: "dir", required: true },
    planner: { type: "string", description: "native (default), bfs, fast-downward (lama-first and astar(blind())), all", valueHint: "name" },
    timeout: { type: "string", description: "Seconds per instance (default 30)", valueHint: "s" },
    json: { type: "string", description: "Write the JSON figures here instead of stdout", valueHint: "file" },
    markdown: { type: "string", description: "Also write the Markdown table here", valueHint: "file" },
  },
  run: async ({ args }) => {
    const flags = parseInput(FlagsSchema, { planner: args.planner, timeout: numberFlag(args.timeout) }, "bench planner flags");
    const report = await runPlannerBench({
      suite: args.suite,
      planner: flags.planner,
      timeoutS: flags.timeout,
      onRun: (planner, run) => console.error(`${planner}\t${run.domain}/${run.problem}\t${run.status}\t${run.seconds.toFixed(2)} s${run.plan_length === null ? "" : `\t${run.plan_length} steps`}`),
    });
    const json = `${JSON.stringify(report, null, 2)}\n`;
    const table = formatPlannerTable(report);
    if (args.json) writeOutputFile(args.json, json, "the JSON figures");
    else process.stdout.write(json);
    if (args.markdown) writeOutputFile(args.markdown, table, "the Markdown table");
    console.error(table);
  },
});
