/**
 * `ask`: the STRONG model answers from the assembled context only, citing what it used, and says
 * "I don't know" when the context does not hold the answer. Citations are checked against the
 * context: one the model made up is dropped (and counted), never shown as a source.
 */
import * as v from "valibot";
import type { ChatMessage, LlmClient, LlmUsage } from "../llm/client.ts";
import type { AssembledContext } from "./route.ts";

export const I_DONT_KNOW = "I don't know";

/** What the model returns (validated; one repair round on a bad answer). */
export const AskAnswerSchema = v.object({
  /** False when the context does not hold the answer. */
  known: v.boolean(),
  answer: v.string(),
  /** The bracketed ids of the context the answer rests on, e.g. "e12", "link 3", "procedure deploy_caddy v2". */
  citations: v.optional(v.array(v.string()), []),
});

export type AskResult = {
  question: string;
  answer: string;
  known: boolean;
  /** Citations found in the context. */
  citations: string[];
  /** Citations the model gave that are not in the context (dropped). */
  unknownCitations: number;
  context: AssembledContext;
  model: string;
  /** The LLM tokens this answer took. */
  usage: { promptTokens: number; completionTokens: number };
  elapsedMs: number;
};

const SYSTEM = `You answer questions about a user's memory from the context given, and from nothing else.
- Use only the context. Episodes are conversation turns: "[e12] Ann: ..." is episode 12 said by Ann ("…" where sentences were left out), on the day of the heading above it, a session's turns in their order. Facts, procedures, paths and timeline lines end with their ids in brackets.
- Resolve relative dates ("last week", "yesterday") against the day of the turn that says them, and answer with the date.
- Answer briefly and directly. Cite every id you used, as written inside the brackets: "e12", "link 3", "procedure deploy_caddy v2", "contradiction c1".
- If the context does not hold the answer, set known to false and answer "${I_DONT_KNOW}". Do not guess.
- If the context holds an open contradiction about the answer, say so.`;

/** The messages for one question (pure). */
export function askMessages(question: string, context: AssembledContext): ChatMessage[] {
  return [
    { role: "system", content: SYSTEM },
    { role: "user", content: `Memory context:\n\n${context.markdown}\n\nQuestion: ${question}` },
  ];
}

/** The ids the context cites, in the form the model is asked to use ("e12", "link 3", ...). */
export function contextCitations(markdown: string): Set<string> {
  const ids = new Set<string>();
  for (const m of markdown.matchAll(/\[e(\d+)(?: excerpt)?\]/g)) ids.add(`e${m[1]}`);
  for (const m of markdown.matchAll(/(?:\[|; )(links?) ([\d, ]+)\]/g)) for (const id of m[2]!.split(/,\s*/)) ids.add(`link ${id}`);
  for (const m of markdown.matchAll(/\[(procedure [^\]]+|summary \d+|node [^\]]+)\]/g)) ids.add(m[1]!);
  for (const m of markdown.matchAll(/\[contradiction ([^;\]]+)/g)) ids.add(`contradiction ${m[1]}`);
  return ids;
}

/** The model's citations normalised ("[E12]", "episode 12" -> "e12") and split into known and made up. */
export function checkCitations(given: readonly string[], known: ReadonlySet<string>): { citations: string[]; unknown: number } {
  const citations: string[] = [];
  let unknown = 0;
  for (const raw of given) {
    const text = raw.replace(/^\[|\]$/g, "").trim();
    const episode = /^(?:e|episode\s*)(\d+)(?:\s*#\d+)?(?:\s+excerpt)?$/i.exec(text);
    const id = episode ? `e${episode[1]}` : text.replace(/^links\b/i, "link");
    if (known.has(id)) {
      if (!citations.includes(id)) citations.push(id);
    } else unknown++;
  }
  return { citations, unknown };
}

/** `usage` reads the run's token counts: the answer's are the difference it makes. */
export async function askFromContext(llm: LlmClient, question: string, context: AssembledContext, usage: () => LlmUsage): Promise<AskResult> {
  const started = performance.now();
  const before = usage();
  const reply = await llm.structured(AskAnswerSchema, askMessages(question, context), `answering "${question.slice(0, 80)}"`);
  const checked = checkCitations(reply.citations, contextCitations(context.markdown));
  const known = reply.known && reply.answer.trim().length > 0;
  return {
    question,
    answer: known ? reply.answer.trim() : I_DONT_KNOW,
    known,
    citations: known ? checked.citations : [],
    unknownCitations: checked.unknown,
    context,
    model: llm.describe(),
    usage: { promptTokens: usage().promptTokens - before.promptTokens, completionTokens: usage().completionTokens - before.completionTokens },
    elapsedMs: Math.round(performance.now() - started),
  };
}

/** The answer as Markdown, its sources under it, the context after when asked for. */
export function formatAskResult(result: AskResult, showContext: boolean): string {
  const lines = [result.answer];
  if (result.citations.length > 0) lines.push("", `Sources: ${result.citations.map((c) => `[${c}]`).join(" ")}`);
  if (result.unknownCitations > 0) lines.push(`_(${result.unknownCitations} citation(s) not in the context were dropped)_`);
  if (showContext) lines.push("", "---", "", result.context.markdown);
  return lines.join("\n");
}
