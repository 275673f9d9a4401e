/** The router's operations: the context a query needs (by its intent, within a token budget), and answers from it. */
import * as v from "valibot";
import { ScopeSchema } from "../../memory/types.ts";
import { formatAskResult } from "../../router/ask.ts";
import type { PlannerChoice } from "../../planning/solve.ts";
import { defineOperation, IntegerSchema, NameSchema, WireTimeSchema } from "../operation.ts";
import { PlanSettingsSchema } from "./tools.ts";

const QuerySchema = v.pipe(v.string(), v.trim(), v.nonEmpty("must not be empty"), v.maxLength(10_000));
const routeFields = {
  budget: v.optional(IntegerSchema(100, 200_000)),
  entities: v.optional(v.array(NameSchema), []),
  as_of: v.optional(WireTimeSchema),
  scope: ScopeSchema,
  // Fast Downward's path comes from $FAST_DOWNWARD on the machine that runs memory, never from a caller.
  planner: PlanSettingsSchema.entries.planner,
};
const routeOptions = (input: { budget?: number; entities: string[]; as_of?: number; scope: string; planner: PlannerChoice }) => ({
  budget: input.budget,
  entities: input.entities,
  asOf: input.as_of,
  scope: input.scope,
  planner: { planner: input.planner },
});

export const context = defineOperation({
  name: "context",
  summary:
    "Assemble the context a query needs within a token budget (characters / 4): its intent (rules, refined by the FAST LLM when one is configured) decides what is pulled — episodes, facts with caveats and trust, open contradictions, recipes and recipe chains, timeline orderings, paths between entities — as cited Markdown, most valuable first",
  input: v.object({ query: QuerySchema, ...routeFields }),
  readOnly: true,
  run: (gllam, input) => gllam.routeAndAssemble(input.query, routeOptions(input)),
  toText: (result) => result.markdown,
});

export const ask = defineOperation({
  name: "ask",
  summary: "Answer a question with the STRONG LLM from the assembled context only, citing episodes, links and procedures; \"I don't know\" when the context does not hold the answer",
  input: v.object({ question: QuerySchema, show_context: v.optional(v.boolean(), false), ...routeFields }),
  readOnly: true,
  run: async (gllam, input) => ({ ...(await gllam.ask(input.question, routeOptions(input))), showContext: input.show_context }),
  toText: (result) => formatAskResult(result, result.showContext),
});
