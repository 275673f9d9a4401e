import { defineCommand } from "citty";
import { parseOperationInput } from "../../gllam/operation.ts";
import { ask } from "../../gllam/operations.ts";
import { globalArgs, scopeArg, scopeOf, withEngine } from "../context.ts";
import { asList, numberFlag } from "./recall.ts";

export const askCommand = defineCommand({
  meta: { name: "ask", description: "Answer a question with the STRONG LLM from the assembled context, with citations (\"I don't know\" when memory does not hold the answer)" },
  args: {
    question: { type: "positional", description: "The question (several words may follow unquoted)", required: true },
    "show-context": { type: "boolean", description: "Print the context the answer was given after it" },
    budget: { type: "string", description: "Context budget in tokens, estimated as characters / 4 (default 1500)", valueHint: "tokens" },
    entity: { type: "string", description: "An entity the question is about (name, id or alias; repeatable)", valueHint: "name" },
    scope: scopeArg,
    "as-of": { type: "string", description: "Answer from memory as it held at this date (ISO-8601)", valueHint: "date" },
    json: { type: "boolean", description: "Print the result as JSON (answer, citations, the context, the model)" },
    ...globalArgs,
  },
  run: ({ args }) => {
    const input = parseOperationInput(ask, {
      question: args._.join(" "),
      show_context: args["show-context"] === true,
      budget: numberFlag(args.budget),
      entities: asList(args.entity),
      as_of: args["as-of"],
      scope: scopeOf(args),
    });
    return withEngine(args, { readOnly: true }, async (gllam) => {
      const result = await ask.run(gllam, input);
      console.log(args.json ? JSON.stringify(result, null, 2) : ask.toText(result));
    });
  },
});
