import { defineCommand } from "citty";
import { parseOperationInput } from "../../gllam/operation.ts";
import { context } from "../../gllam/operations.ts";
import { globalArgs, scopeArg, scopeOf, withEngine } from "../context.ts";
import { asList, numberFlag } from "./recall.ts";

export const contextCommand = defineCommand({
  meta: { name: "context", description: "Assemble the context a query needs (by its intent) as cited Markdown within a token budget" },
  args: {
    query: { type: "positional", description: "The question or task (several words may follow unquoted)", required: true },
    budget: { type: "string", description: "Token budget, estimated as characters / 4 (default 1500)", valueHint: "tokens" },
    entity: { type: "string", description: "An entity the query is about (name, id or alias; repeatable)", valueHint: "name" },
    scope: scopeArg,
    "as-of": { type: "string", description: "Read facts as they held at this date, and only episodes up to it (ISO-8601)", valueHint: "date" },
    json: { type: "boolean", description: "Print the result as JSON (the Markdown, the intent, each item with its value and tokens)" },
    ...globalArgs,
  },
  run: ({ args }) => {
    const input = parseOperationInput(context, {
      query: args._.join(" "),
      budget: numberFlag(args.budget),
      entities: asList(args.entity),
      as_of: args["as-of"],
      scope: scopeOf(args),
    });
    return withEngine(args, { readOnly: true }, async (gllam) => {
      const result = await context.run(gllam, input);
      console.log(args.json ? JSON.stringify(result, null, 2) : context.toText(result));
    });
  },
});
