import * as v from "valibot";
import { GllamError } from "../engine/errors.ts";
import { ScopeSchema } from "./types.ts";

/** Parses a boundary value, or throws E_BAD_INPUT naming the field and the problem. */
export function parseInput<const S extends v.GenericSchema>(schema: S, input: unknown, what: string): v.InferOutput<S> {
  const checked = checkInput(schema, input);
  if (checked.ok) return checked.value;
  throw new GllamError("E_BAD_INPUT", `invalid ${what}: ${checked.problem}`);
}

/** Parses a boundary value: its output, or the problem (fields and reasons), for callers that list bad records. */
export function checkInput<const S extends v.GenericSchema>(schema: S, input: unknown): { ok: true; value: v.InferOutput<S> } | { ok: false; problem: string } {
  const result = v.safeParse(schema, input);
  return result.success ? { ok: true, value: result.output } : { ok: false, problem: describeIssues(result.issues) };
}

/**
 * A scope as every read and write uses it (ScopeSchema: trimmed, NFC, checked; absent = "default").
 * `what` names the input in the error (`--scope` on the command line).
 */
export function parseScope(scope: unknown, what = "scope"): string {
  const result = v.safeParse(ScopeSchema, scope);
  if (result.success) return result.output;
  const shown = typeof scope === "string" ? JSON.stringify(scope.length > 60 ? `${scope.slice(0, 60)}…` : scope) : `(${typeof scope})`;
  throw new GllamError("E_BAD_INPUT", `invalid ${what} ${shown}: ${result.issues[0].message}`);
}

export function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .slice(0, 3)
    .map((issue) => `${v.getDotPath(issue) ?? "(value)"}: ${issue.message}`)
    .join("; ");
}

/** JSON columns come back as text; a corrupt value must not crash a read. */
export function parseJsonColumn<T>(text: string | null, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}
