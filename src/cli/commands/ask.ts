import { defineCommand } from "citty";
import { parseOperationInput } from "../../gllam/operation.ts";
import { ask } from "../../gllam/operations.ts";
import { globalArgs, withEngine } from "../context.ts";
import { routeArgs, routeInput } from "./context.ts";

export const askCommand = defineCommand({
  meta: { name: "ask", description: "Answer a question with the STRONG LLM from the assembled context, with citations (\"I don't know\" when memory does not hold the answer)" },
  args: {
    question: { type: "positional", description: "The question (several words may follow unquoted)", required: true },
    "show-context": { type: "boolean", description: "Print the context the answer was given after it" },
    ...routeArgs,
    json: { type: "boolean", description: "Print the result as JSON (answer, citations, the context, the model)" },
    ...globalArgs,
  },
  run: ({ args }) => {
    const input = parseOperationInput(ask, { question: args._.join(" "), show_context: args["show-context"] === true, ...routeInput(args) });
    return withEngine(args, { readOnly: true }, async (gllam) => {
      const result = await ask.run(gllam, input);
      console.log(args.json ? JSON.stringify(result, null, 2) : ask.toText(result));
    });
  },
});
