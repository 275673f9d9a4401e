/**
 * Turning a model's text into a validated value: strip reasoning (<think> blocks) and Markdown code
 * fences, take the JSON, validate it with the caller's valibot schema. Pure.
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { describeIssues } from "../memory/parse.ts";

/** The text without <think>…</think> blocks (also an unclosed one at the start, or a lone closing tag). */
export function stripThinking(text: string): string {
  let out = text.replace(/<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi, "");
  // Some servers drop the opening tag (the template opened it): everything before a lone closer is reasoning.
  const lone = out.search(/<\/(think|thinking|reasoning)>/i);
  if (lone >= 0) out = out.slice(out.indexOf(">", lone) + 1);
  // An unclosed block (output cut off while thinking) leaves nothing usable.
  return out.replace(/<(think|thinking|reasoning)>[\s\S]*$/i, "").trim();
}

/** The JSON text in a model's answer: inside a ``` fence if there is one, else from the first { or [ to its last match. */
export function extractJsonText(text: string): string {
  const body = stripThinking(text);
  const fenced = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/.exec(body);
  const inner = (fenced ? fenced[1]! : body).trim();
  const start = inner.search(/[[{]/);
  if (start < 0) return inner;
  const close = inner[start] === "{" ? "}" : "]";
  const end = inner.lastIndexOf(close);
  return end > start ? inner.slice(start, end + 1) : inner.slice(start);
}

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

/** Parses and validates a model's answer; the problem says what was wrong, for the repair round. */
export function checkOutput<S extends v.GenericSchema>(schema: S, text: string): Checked<v.InferOutput<S>> {
  const json = extractJsonText(text);
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    const shown = json.length > 120 ? `${json.slice(0, 60)}…${json.slice(-40)}` : json;
    return { ok: false, problem: `not valid JSON (${error instanceof Error ? error.message : String(error)}): ${shown || "(empty answer)"}` };
  }
  const parsed = v.safeParse(schema, value);
  return parsed.success ? { ok: true, value: parsed.output } : { ok: false, problem: `JSON does not match the schema: ${describeIssues(parsed.issues)}` };
}

/** The JSON Schema sent to servers (and shown in the prompt); what cannot be expressed is left open, never an error. */
export const jsonSchemaOf = (schema: v.GenericSchema): Record<string, unknown> => {
  const { $schema: _, ...rest } = toJsonSchema(schema, { errorMode: "ignore" }) as Record<string, unknown>;
  return rest;
};
