import { defineCommand } from "citty";
import { GllamError } from "../../engine/errors.ts";
import { parseInput } from "../../memory/parse.ts";
import { TimestampSchema } from "../../memory/types.ts";
import { formatRecallMarkdown } from "../../retrieval/format.ts";
import { globalArgs, scopeArg, scopeOf, withEngine } from "../context.ts";

const asList = (value: unknown): string[] => (value === undefined ? [] : Array.isArray(value) ? value.map(String) : [String(value)]);

/** "START..END", "START.." or "..END" as epoch ms. */
export function parseWindow(text: string): { start?: number; end?: number } {
  const parts = text.split("..");
  if (parts.length !== 2 || (!parts[0] && !parts[1])) throw new GllamError("E_BAD_INPUT", `--window must be START..END, START.. or ..END, got "${text}"`);
  const [start, end] = parts.map((part, i) => (part ? parseInput(TimestampSchema, part, i === 0 ? "--window start" : "--window end") : undefined));
  return { start, end };
}

export const recallCommand = defineCommand({
  meta: { name: "recall", description: "Recall what memory holds about a query and print the assembled context" },
  args: {
    query: { type: "positional", description: "What to recall (several words may follow unquoted)", required: true },
    entity: { type: "string", description: "An entity the query is about (name, id or alias; repeatable)", valueHint: "name" },
    k: { type: "string", description: "How many similar nodes to list (default 5)", valueHint: "n" },
    scope: scopeArg,
    "as-of": { type: "string", description: "Read facts as they held at this date, and only episodes up to it (ISO-8601)", valueHint: "date" },
    window: { type: "string", description: "Only episodes in [START, END): START..END, START.. or ..END (ISO-8601 dates)", valueHint: "range" },
    episodes: { type: "string", description: "How many episodes to list (default 10; 0 for none)", valueHint: "n" },
    json: { type: "boolean", description: "Print the result as JSON" },
    ...globalArgs,
  },
  run: ({ args }) => {
    const query = args._.join(" ");
    const k = args.k === undefined ? undefined : Number(args.k);
    if (k !== undefined && !Number.isInteger(k)) throw new GllamError("E_BAD_INPUT", `-k must be an integer, got ${args.k}`);
    const asOf = args["as-of"] === undefined ? undefined : parseInput(TimestampSchema, args["as-of"], "--as-of");
    const window = args.window === undefined ? undefined : parseWindow(args.window);
    const episodes = args.episodes === undefined ? undefined : Number(args.episodes);
    return withEngine(args, { readOnly: true }, async (gllam) => {
      const result = await gllam.recall(query, { entities: asList(args.entity), k, scope: scopeOf(args), asOf, window, episodes });
      console.log(args.json ? JSON.stringify(result, null, 2) : formatRecallMarkdown(result));
    });
  },
});
