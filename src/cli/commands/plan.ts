import { defineCommand } from "citty";
import * as v from "valibot";
import { GllamError } from "../../engine/errors.ts";
import { writeOutputFile } from "../../engine/files.ts";
import { parseInput } from "../../memory/parse.ts";
import { formatPlan } from "../../planning/plan-text.ts";
import { PLANNER_CHOICES, planFiles } from "../../planning/solve.ts";
import { reportError } from "../report-error.ts";

/** Seconds on the command line; 30 s like the benchmark's limit per instance. */
export const TimeoutSecondsSchema = v.pipe(
  v.optional(v.string(), "30"),
  v.transform(Number),
  v.number("must be a number of seconds"),
  v.check((s) => Number.isFinite(s) && s > 0, "must be a positive number of seconds"),
);

const PlanFlagsSchema = v.object({
  planner: v.optional(v.picklist(PLANNER_CHOICES, `must be one of ${PLANNER_CHOICES.join(", ")}`), "native"),
  timeout: TimeoutSecondsSchema,
  improve: v.optional(v.picklist(["none", "eliminate", "anytime"], "must be none, eliminate or anytime"), "eliminate"),
});

export const planCommand = defineCommand({
  meta: { name: "plan", description: "Solve a PDDL task; prints the validated plan in IPC format (exit 0 solved, 1 no plan, 2 error)" },
  args: {
    domain: { type: "positional", description: "Domain file (PDDL)", required: true },
    problem: { type: "positional", description: "Problem file (PDDL)", required: true },
    planner: { type: "string", description: "native (default: greedy best-first, FF), bfs (breadth-first), fast-downward, auto (Fast Downward when installed)", valueHint: "name" },
    timeout: { type: "string", description: "Time limit in seconds (default 30)", valueHint: "s" },
    out: { type: "string", description: "Write the plan to this file instead of stdout", valueHint: "file" },
    improve: { type: "string", description: "Native plan improvement: none, eliminate (default: drop redundant steps), anytime (also weighted A* restarts until the limit)", valueHint: "mode" },
    "fast-downward": { type: "string", description: "fast-downward.py (default: $FAST_DOWNWARD, else ~/Projects/downward/fast-downward.py)", valueHint: "path" },
    debug: { type: "boolean", description: "Print stack traces on errors" },
  },
  run: async ({ args }) => {
    try {
      const flags = parseInput(PlanFlagsSchema, { planner: args.planner, timeout: args.timeout, improve: args.improve }, "plan flags");
      const result = await planFiles(args.domain, args.problem, {
        planner: flags.planner,
        timeoutMs: flags.timeout * 1000,
        improve: flags.improve,
        fastDownward: { path: args["fast-downward"] },
      });
      if (result.status === "invalid") throw new GllamError("E_PLANNER", `${result.planner} returned an invalid plan: ${result.reason}`);
      if (result.status !== "solved") {
        console.error(`gllam: no plan (${result.status}, ${result.planner}): ${result.reason}`);
        return 1;
      }
      const text = formatPlan(result.plan, result.cost);
      if (args.out) writeOutputFile(args.out, text, "the plan");
      else process.stdout.write(text);
      return 0;
    } catch (error) {
      reportError(error, args.debug === true);
      return 2;
    }
  },
});
