/**
 * MCP tools generated from the facade's operations: a tool's name, description and input schema are
 * the operation's own (the JSON Schema comes from its valibot schema), so the tools cannot drift
 * from the CLI and HTTP faces that parse the same schemas.
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Operation } from "../../gllam/operation.ts";

type JsonObject = Record<string, unknown>;

/**
 * MCP wants an object schema at the top; a union of objects (forget's "exactly one of node, link,
 * ...") becomes one object with every branch's properties, none required, and says so.
 */
export function mergeObjectUnion(schema: JsonObject): JsonObject {
  const branches = schema.anyOf as JsonObject[] | undefined;
  if (!branches?.every((branch) => branch.type === "object")) return schema;
  const properties: JsonObject = {};
  for (const branch of branches) Object.assign(properties, { ...(branch.properties as JsonObject), ...properties });
  const choices = branches.flatMap((branch) => (branch.required as string[] | undefined) ?? []);
  const { anyOf: _anyOf, ...rest } = schema;
  return { ...rest, type: "object", properties, additionalProperties: false, description: `Give exactly one of: ${[...new Set(choices)].join(", ")}` };
}

/** The operation's input as JSON Schema; with a server-wide scope, `scope` defaults to it. */
export function inputSchemaOf(operation: Operation, defaultScope: string): Tool["inputSchema"] {
  // Transforms and checks (dates given as text, trimmed names) have no JSON Schema: the schema
  // describes what a caller sends, and the valibot schema still checks every call.
  const { $schema: _dialect, default: _default, ...schema } = mergeObjectUnion(toJsonSchema(operation.input, { typeMode: "input", errorMode: "ignore" }) as JsonObject);
  const properties = (schema.properties ?? {}) as Record<string, JsonObject>;
  if (properties.scope) properties.scope = { ...properties.scope, default: defaultScope, description: "Memory scope (rows of other scopes are invisible)" };
  return { ...schema, type: "object", properties };
}

/** An operation offered as a tool, with what a call needs to fill in the server's scope. */
export type OperationTool = { operation: Operation; tool: Tool; takesScope: boolean };

export function toolOf(operation: Operation, defaultScope: string): OperationTool {
  const inputSchema = inputSchemaOf(operation, defaultScope);
  return {
    operation,
    tool: { name: operation.name, description: operation.summary, inputSchema, annotations: { readOnlyHint: operation.readOnly, openWorldHint: false } },
    takesScope: "scope" in (inputSchema.properties ?? {}),
  };
}

/** A call's arguments with the server's scope where the call names none and the tool takes one. */
export function withDefaultScope(entry: OperationTool, args: unknown, defaultScope: string): unknown {
  const plain = typeof args === "object" && args !== null && !Array.isArray(args);
  if (!entry.takesScope || !plain || "scope" in args) return args;
  return { ...args, scope: defaultScope };
}
