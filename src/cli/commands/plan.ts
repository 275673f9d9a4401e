import { defineCommand } from "citty";
import { GllamError } from "../../engine/errors.ts";
import { parseInput } from "../../memory/parse.ts";
import { plan } from "../../gllam/operations.ts";
import { PlanSettingsSchema } from "../../gllam/operations/tools.ts";
import { planPddlFiles } from "../../gllam/tools.ts";
import { writeOutputFile } from "../../gllam/types.ts";
import { reportError } from "../report-error.ts";
import { numberFlag } from "./recall.ts";

/** The planner flags `plan`, `context` and `ask` share. */
export const plannerArgs = {
  planner: { type: "string", description: "native (default: greedy best-first, FF), bfs (breadth-first), fast-downward, auto (Fast Downward when installed)", valueHint: "name" },
  "fast-downward": { type: "string", description: "fast-downward.py (default: $FAST_DOWNWARD, else ~/Projects/downward/fast-downward.py)", valueHint: "path" },
} as const;

export const planCommand = defineCommand({
  meta: { name: "plan", description: "Solve a PDDL task; prints the validated plan in IPC format (exit 0 solved, 1 no plan, 2 error)" },
  args: {
    domain: { type: "positional", description: "Domain file (PDDL)", required: true },
    problem: { type: "positional", description: "Problem file (PDDL)", required: true },
    ...plannerArgs,
    timeout: { type: "string", description: "Time limit in seconds (default 30)", valueHint: "s" },
    out: { type: "string", description: "Write the plan to this file instead of stdout", valueHint: "file" },
    improve: { type: "string", description: "Native plan improvement: none, eliminate (default: drop redundant steps), anytime (also weighted A* restarts until the limit)", valueHint: "mode" },
    debug: { type: "boolean", description: "Print stack traces on errors" },
  },
  run: async ({ args }) => {
    try {
      const flags = parseInput(PlanSettingsSchema, { planner: args.planner, timeout: numberFlag(args.timeout), improve: args.improve }, "plan flags");
      const result = await planPddlFiles(args.domain, args.problem, {
        planner: flags.planner,
        timeoutMs: flags.timeout * 1000,
        improve: flags.improve,
        fastDownward: { path: args["fast-downward"] },
      });
      if (result.status === "invalid") throw new GllamError("E_PLANNER", `${result.planner} returned an invalid plan: ${result.reason}`);
      const text = plan.toText(result);
      if (result.status !== "solved") {
        console.error(`gllam: ${text}`);
        return 1;
      }
      if (args.out) writeOutputFile(args.out, text, "the plan");
      else process.stdout.write(text);
      return 0;
    } catch (error) {
      reportError(error, args.debug === true);
      return 2;
    }
  },
});
