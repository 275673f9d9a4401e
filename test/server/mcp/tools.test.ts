import { describe, expect, test } from "bun:test";
import { OPERATIONS } from "../../../src/gllam/operations.ts";
import { mergeObjectUnion, toolOf, withDefaultScope } from "../../../src/server/mcp/tools.ts";

const entryNamed = (name: string, scope = "default") => toolOf(OPERATIONS.find((operation) => operation.name === name)!, scope);

describe("MCP tools from operations", () => {
  test("every operation is a tool named as the operation, described by its summary", () => {
    for (const operation of OPERATIONS) {
      const { tool } = toolOf(operation, "default");
      expect(tool).toMatchObject({ name: operation.name, description: operation.summary, inputSchema: { type: "object" } });
      expect(tool.annotations?.readOnlyHint).toBe(operation.readOnly);
      expect(tool.inputSchema).not.toHaveProperty("$schema");
    }
  });

  test("the input schema is the operation's valibot schema as JSON Schema", () => {
    const { inputSchema } = entryNamed("add_fact").tool;
    expect(inputSchema.required).toEqual(["subject", "relationship", "object"]);
    expect(inputSchema.properties?.trust).toEqual({ type: "integer", minimum: 10, maximum: 1000 });
    // Dates are sent as epoch milliseconds or ISO-8601 text.
    expect(inputSchema.properties?.valid_from).toEqual({ anyOf: [{ type: "number" }, { type: "string", minLength: 1 }] });
  });

  test("a union of objects becomes one object schema that says to give exactly one", () => {
    const merged = mergeObjectUnion({
      anyOf: [
        { type: "object", properties: { node: { type: "string" }, scope: { type: "string" } }, required: ["node"] },
        { type: "object", properties: { link: { type: "integer" }, scope: { type: "string" } }, required: ["link"] },
      ],
    });
    expect(merged).toEqual({
      type: "object",
      properties: { node: { type: "string" }, scope: { type: "string" }, link: { type: "integer" } },
      additionalProperties: false,
      description: "Give exactly one of: node, link",
    });
    expect(mergeObjectUnion({ anyOf: [{ type: "string" }, { type: "number" }] })).toEqual({ anyOf: [{ type: "string" }, { type: "number" }] });
  });

  test("the server's scope is the scope's default and fills calls that name none", () => {
    const recall = entryNamed("recall", "work");
    expect(recall.tool.inputSchema.properties?.scope).toMatchObject({ type: "string", default: "work" });
    expect(withDefaultScope(recall, { query: "x" }, "work")).toEqual({ query: "x", scope: "work" });
    expect(withDefaultScope(recall, { query: "x", scope: "home" }, "work")).toEqual({ query: "x", scope: "home" });
    // Tools without a scope, and arguments that are not an object (the schema's error names them), are left alone.
    const plan = entryNamed("plan", "work");
    expect(plan.takesScope).toBe(false);
    expect(withDefaultScope(plan, { domain: "d" }, "work")).toEqual({ domain: "d" });
    expect(withDefaultScope(recall, ["x"], "work")).toEqual(["x"]);
  });
});
