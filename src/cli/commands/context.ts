import { defineCommand } from "citty";
import { parseOperationInput } from "../../gllam/operation.ts";
import { context } from "../../gllam/operations.ts";
import { globalArgs, scopeOf, withEngine } from "../context.ts";
import { plannerArgs } from "./plan.ts";
import { asList, numberFlag, queryFocusArgs } from "./recall.ts";

export const budgetArg = { type: "string", description: "Context budget in tokens, estimated as characters / 4 (default 1500)", valueHint: "tokens" } as const;

/** The router's input from the flags both `context` and `ask` take. */
export const routeInput = (args: { budget?: string; entity?: unknown; "as-of"?: string; scope?: string; planner?: string }) => ({
  budget: numberFlag(args.budget),
  entities: asList(args.entity),
  as_of: args["as-of"],
  scope: scopeOf(args),
  planner: args.planner,
});

/** Flags both `context` and `ask` take beside the query. */
export const routeArgs = { budget: budgetArg, ...queryFocusArgs, planner: { ...plannerArgs.planner, description: `Who orders timelines: ${plannerArgs.planner.description}; Fast Downward is $FAST_DOWNWARD` } } as const;

export const contextCommand = defineCommand({
  meta: { name: "context", description: "Assemble the context a query needs (by its intent) as cited Markdown within a token budget" },
  args: {
    query: { type: "positional", description: "The question or task (several words may follow unquoted)", required: true },
    ...routeArgs,
    json: { type: "boolean", description: "Print the result as JSON (the Markdown, the intent, each item with its value and tokens)" },
    ...globalArgs,
  },
  run: ({ args }) => {
    const input = parseOperationInput(context, { query: args._.join(" "), ...routeInput(args) });
    return withEngine(args, { readOnly: true }, async (gllam) => {
      const result = await context.run(gllam, input);
      console.log(args.json ? JSON.stringify(result, null, 2) : context.toText(result));
    });
  },
});
