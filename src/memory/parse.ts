import * as v from "valibot";
import { GllamError } from "../engine/errors.ts";
import { ScopeSchema } from "./types.ts";

/** How a face names a field on its wire when the name differs from the schema's (HTTP's `episodes` for `turns`). */
export type FieldNamer = (field: string) => string;

/** Parses a boundary value, or throws E_BAD_INPUT naming the field (as `name` spells it) and the problem. */
export function parseInput<const S extends v.GenericSchema>(schema: S, input: unknown, what: string, name?: FieldNamer): v.InferOutput<S> {
  const checked = checkInput(schema, input, name);
  if (checked.ok) return checked.value;
  throw new GllamError("E_BAD_INPUT", `invalid ${what}: ${checked.problem}`);
}

/** Parses a boundary value: its output, or the problem (fields and reasons), for callers that list bad records. */
export function checkInput<const S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  name?: FieldNamer,
): { ok: true; value: v.InferOutput<S> } | { ok: false; problem: string } {
  const result = v.safeParse(schema, input);
  return result.success ? { ok: true, value: result.output } : { ok: false, problem: describeIssues(result.issues, name) };
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

const OBJECT_TYPES = new Set(["object", "strict_object", "loose_object"]);

/**
 * A union of objects (one of node, link, ...) fails as a whole with valibot's "Expected Object but
 * received Object": the member issues about a field's value say what is wrong; when every member
 * only misses or refuses keys, the issue says which keys the value may have.
 */
function explainUnion(issue: v.BaseIssue<unknown>): v.BaseIssue<unknown>[] {
  if (issue.type !== "union" || !issue.issues) return [issue];
  const keyIssue = (member: v.BaseIssue<unknown>) => OBJECT_TYPES.has(member.type) && (member.expected === "never" || member.received === "undefined");
  const valueIssues = issue.issues.filter((member) => !keyIssue(member));
  if (valueIssues.length > 0) return valueIssues.flatMap(explainUnion);
  const keys = [...new Set(issue.issues.filter((member) => member.received === "undefined").map((member) => member.expected?.replace(/"/g, "")))];
  return keys.length > 0 ? [{ ...issue, message: `must have exactly one of: ${keys.join(", ")}` }] : [issue];
}

/** The first issues as `path: problem`; `name` renames each path's first field. */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[], name: FieldNamer = (field) => field): string {
  return issues
    .flatMap(explainUnion)
    .slice(0, 3)
    .map((issue) => {
      const [first, ...rest] = (v.getDotPath(issue) ?? "").split(".");
      return `${first ? [name(first), ...rest].join(".") : "(value)"}: ${issue.message}`;
    })
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
