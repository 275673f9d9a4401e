/**
 * A request as its operation's input: path parameters and query values (text on the wire) become
 * the numbers or booleans the operation's schema takes where its JSON Schema says so, the JSON body
 * is read under the size limit, and the schema parses the whole; errors name fields as the wire does.
 */
import { toJsonSchema, type JsonSchema } from "@valibot/to-json-schema";
import { parseOperationInput, type Operation } from "../../gllam/operation.ts";
import { GllamError } from "../../gllam/types.ts";
import type { Route } from "./routes.ts";

const jsonSchemas = new WeakMap<Operation<any, any>, JsonSchema>();

/** The operation's input as JSON Schema (what a client sends: defaults shown, transforms left out). */
export function inputJsonSchema(operation: Operation<any, any>): JsonSchema {
  let schema = jsonSchemas.get(operation);
  if (!schema) {
    schema = toJsonSchema(operation.input, { typeMode: "input", errorMode: "ignore" });
    jsonSchemas.set(operation, schema);
  }
  return schema;
}

/** One input field's JSON Schema (in the object, or in the first union member that has it). */
export function fieldJsonSchema(operation: Operation<any, any>, field: string): JsonSchema {
  const schema = inputJsonSchema(operation);
  for (const member of [schema, ...((schema.anyOf ?? []) as JsonSchema[])]) {
    const found = typeof member === "object" ? member.properties?.[field] : undefined;
    if (found !== undefined && typeof found === "object") return found;
  }
  return {};
}

const typesOf = (schema: JsonSchema): string[] => [
  ...[schema.type ?? []].flat(),
  ...((schema.anyOf ?? []) as JsonSchema[]).flatMap((member) => (typeof member === "object" ? [member.type ?? []].flat() : [])),
];

/** A path or query value as the field's schema takes it: a number or boolean when it must (or may) be one. */
export function fromText(text: string, schema: JsonSchema): unknown {
  const types = typesOf(schema);
  if ((types.includes("number") || types.includes("integer")) && /^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (types.includes("boolean") && (text === "true" || text === "false")) return text === "true";
  return text;
}

/** The route's wire name of an input field (a path parameter or a renamed body field), for error messages. */
export function wireNamer(route: Route): (field: string) => string {
  const names = new Map<string, string>();
  for (const [param, field] of Object.entries(route.params ?? {})) names.set(field, param);
  for (const [wire, field] of Object.entries(route.body?.rename ?? {})) names.set(field, wire);
  return (field) => names.get(field) ?? field;
}

/** Reads the body as text, refusing it (E_TOO_LARGE) as soon as it passes `limit` bytes, declared or not. */
export async function readBody(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > limit) throw tooLarge(limit);
  if (!request.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body) {
    size += chunk.byteLength;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

const tooLarge = (limit: number) => new GllamError("E_TOO_LARGE", `request body over the server's limit of ${limit} bytes (gllam serve --max-body)`);

/** The body as JSON: an empty body is no fields; anything but an object is refused. */
function parseJsonBody(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new GllamError("E_BAD_INPUT", `request body is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new GllamError("E_BAD_INPUT", "request body must be a JSON object");
  return body as Record<string, unknown>;
}

export type RequestParts = { params: Record<string, string>; query: URLSearchParams; body: string };

/** The route's raw input from the request's parts (before the schema): body fields, then query values, then path parameters. */
export function collectInput(route: Route, parts: RequestParts): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  if (route.body) {
    for (const [key, value] of Object.entries(parseJsonBody(parts.body))) input[route.body.rename?.[key] ?? key] = value;
  }
  const allowed = route.query ?? [];
  for (const [key, value] of parts.query) {
    if (!allowed.includes(key)) {
      throw new GllamError("E_BAD_INPUT", `unknown query parameter "${key}" for ${route.method} ${route.path}${allowed.length > 0 ? ` (it takes ${allowed.join(", ")})` : ""}`);
    }
    input[key] = fromText(value, fieldJsonSchema(route.operation, key));
  }
  for (const [param, field] of Object.entries(route.params ?? {})) input[field] = fromText(parts.params[param] ?? "", fieldJsonSchema(route.operation, field));
  return input;
}

/** The request as the operation's parsed input; E_BAD_INPUT names the bad field as the wire does. */
export function parseRouteInput(route: Route, parts: RequestParts): unknown {
  return parseOperationInput(route.operation, collectInput(route, parts), wireNamer(route));
}
