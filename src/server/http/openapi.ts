/** The OpenAPI 3.1 document of the route table, its schemas generated from the operations' valibot schemas. */
import type { JsonSchema } from "@valibot/to-json-schema";
import { version } from "../../../package.json";
import { ERROR_CODES } from "../../gllam/types.ts";
import { fieldJsonSchema, inputJsonSchema } from "./input.ts";
import type { Route } from "./routes.ts";

const ERROR_SCHEMA = {
  type: "object",
  properties: { error: { type: "object", properties: { code: { enum: [...ERROR_CODES] }, message: { type: "string" } }, required: ["code", "message"] } },
  required: ["error"],
};

const errorReply = (description: string) => ({ description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } });

/** The body's schema as the wire spells it: renamed fields under their wire names, path parameters left out. */
function bodySchema(route: Route): JsonSchema {
  const { $schema: _, ...schema } = inputJsonSchema(route.operation);
  const rename = Object.entries(route.body?.rename ?? {});
  const fromPath = new Set(Object.values(route.params ?? {}));
  if (rename.length === 0 && fromPath.size === 0) return schema;
  const wireOf = (field: string) => rename.find(([, f]) => f === field)?.[0] ?? field;
  const properties = Object.entries(schema.properties ?? {}).filter(([field]) => !fromPath.has(field));
  return {
    ...schema,
    properties: Object.fromEntries(properties.map(([field, value]) => [wireOf(field), value])),
    required: (schema.required ?? []).filter((field) => !fromPath.has(field)).map(wireOf),
  };
}

function operationObject(route: Route): Record<string, unknown> {
  const parameters = [
    ...Object.entries(route.params ?? {}).map(([name, field]) => ({ name, in: "path", required: true, schema: fieldJsonSchema(route.operation, field) })),
    ...(route.query ?? []).map((name) => ({ name, in: "query", required: false, schema: fieldJsonSchema(route.operation, name) })),
  ];
  return {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[{}]/g, "").replace(/\/(\w)/g, (_, c: string) => c.toUpperCase()).replace(/\W/g, "")}`,
    summary: route.summary ?? route.operation.summary,
    "x-gllam-operation": route.operation.name,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body ? { requestBody: { required: true, content: { "application/json": { schema: bodySchema(route) } } } } : {}),
    responses: {
      "200": {
        description: `The ${route.operation.name} result as JSON (the CLI's --json), or as Markdown with Accept: text/markdown`,
        content: { "application/json": { schema: {} }, "text/markdown": { schema: { type: "string" } } },
      },
      "400": errorReply("Malformed JSON or a bad field (the message names its path)"),
      "401": errorReply("Missing or wrong bearer token"),
      "404": errorReply("No such route, or the named node, episode, ... does not exist"),
      "413": errorReply("Request body over the server's limit"),
      default: errorReply("Any other error: {error: {code, message}}"),
    },
  };
}

export function buildOpenApiDocument(routes: readonly Route[], options: { secured: boolean }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) (paths[route.path] ??= {})[route.method.toLowerCase()] = operationObject(route);
  paths["/health"] = {
    get: {
      operationId: "getHealth",
      summary: "Liveness, and whether the server still warms recall up (never needs the token)",
      security: [],
      responses: { "200": { description: '{"status": "ok", "warmingUp": false}: warmingUp is true until the warm-up at start is done' } },
    },
  };
  return {
    openapi: "3.1.0",
    info: { title: "GLLAM HTTP API", version, description: "Local agentic memory: episodic, semantic and procedural memory in one SQLite file" },
    paths,
    components: {
      schemas: { Error: ERROR_SCHEMA },
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    },
    ...(options.secured ? { security: [{ bearer: [] }] } : {}),
  };
}
