/** The router's operation: the context a query needs, by its intent, as cited Markdown within a token budget. */
import * as v from "valibot";
import { ScopeSchema } from "../../memory/types.ts";
import { defineOperation, IntegerSchema, NameSchema, WireTimeSchema } from "../operation.ts";

export const context = defineOperation({
  name: "context",
  summary:
    "Assemble the context a query needs within a token budget (characters / 4): its intent (rules) decides what is pulled — episodes, facts with caveats and trust, open contradictions, recipes and recipe chains, timeline orderings, paths between entities — as cited Markdown, most valuable first",
  input: v.object({
    query: v.pipe(v.string(), v.trim(), v.nonEmpty("must not be empty"), v.maxLength(10_000)),
    budget: v.optional(IntegerSchema(100, 200_000)),
    entities: v.optional(v.array(NameSchema), []),
    as_of: v.optional(WireTimeSchema),
    scope: ScopeSchema,
  }),
  readOnly: true,
  run: (gllam, input) => gllam.routeAndAssemble(input.query, { budget: input.budget, entities: input.entities, asOf: input.as_of, scope: input.scope }),
  toText: (result) => result.markdown,
});
