import { defineCommand } from "citty";
import { GllamError } from "../../engine/errors.ts";
import { parseOperationInput } from "../../gllam/operation.ts";
import { recall } from "../../gllam/operations.ts";
import { globalArgs, scopeArg, scopeOf, withEngine } from "../context.ts";

export const asList = (value: unknown): string[] => (value === undefined ? [] : Array.isArray(value) ? value.map(String) : [String(value)]);

/** "START..END", "START.." or "..END": the window's ends as given (the operation's schema reads the dates). */
export function parseWindow(text: string): { start?: string; end?: string } {
  const parts = text.split("..");
  if (parts.length !== 2 || (!parts[0] && !parts[1])) throw new GllamError("E_BAD_INPUT", `--window must be START..END, START.. or ..END, got "${text}"`);
  return { start: parts[0] || undefined, end: parts[1] || undefined };
}

/** A number flag as given: the operation's schema says what it must be. */
export const numberFlag = (value: string | undefined): number | undefined => (value === undefined ? undefined : Number(value));

/** The flags of every command that reads memory about a query: its entities, scope and date. */
export const queryFocusArgs = {
  entity: { type: "string", description: "An entity the query is about (name, id or alias; repeatable)", valueHint: "name" },
  scope: scopeArg,
  "as-of": { type: "string", description: "Read facts as they held at this date, and only episodes up to it (ISO-8601)", valueHint: "date" },
} as const;

export const recallCommand = defineCommand({
  meta: { name: "recall", description: "Recall what memory holds about a query and print the assembled context" },
  args: {
    query: { type: "positional", description: "What to recall (several words may follow unquoted)", required: true },
    ...queryFocusArgs,
    k: { type: "string", description: "How many similar nodes to list (default 5)", valueHint: "n" },
    window: { type: "string", description: "Only episodes in [START, END): START..END, START.. or ..END (ISO-8601 dates)", valueHint: "range" },
    episodes: { type: "string", description: "How many episodes to list (default 10; 0 for none)", valueHint: "n" },
    json: { type: "boolean", description: "Print the result as JSON" },
    ...globalArgs,
  },
  run: ({ args }) => {
    const input = parseOperationInput(recall, {
      query: args._.join(" "),
      entities: asList(args.entity),
      k: numberFlag(args.k),
      episodes: numberFlag(args.episodes),
      window: args.window === undefined ? undefined : parseWindow(args.window),
      as_of: args["as-of"],
      scope: scopeOf(args),
    });
    return withEngine(args, { readOnly: true }, async (gllam) => {
      const result = await recall.run(gllam, input);
      console.log(args.json ? JSON.stringify(result, null, 2) : recall.toText(result));
    });
  },
});
