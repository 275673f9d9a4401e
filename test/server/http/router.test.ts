import { describe, expect, test } from "bun:test";
import { GllamError } from "../../../src/gllam/types.ts";
import { fieldJsonSchema } from "../../../src/server/http/input.ts";
import { createRouter } from "../../../src/server/http/router.ts";
import { ROUTES } from "../../../src/server/http/routes.ts";

const router = createRouter(ROUTES);

describe("HTTP router", () => {
  test("matches a path's parameters, decoded", () => {
    const match = router.match("GET", "/v1/nodes/web%20server/facts");
    expect(match?.route.operation.name).toBe("facts");
    expect(match?.params).toEqual({ id: "web server" });
  });

  test("a parameter is one whole segment", () => {
    expect(router.match("GET", "/v1/nodes/a/b/facts")).toBeUndefined();
    expect(router.match("GET", "/v1/nodes//facts")).toBeUndefined();
  });

  test("a known path with another method is E_METHOD_NOT_ALLOWED listing the methods it takes", () => {
    let error: unknown;
    try {
      router.match("GET", "/v1/nodes/x");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GllamError);
    expect((error as GllamError).code).toBe("E_METHOD_NOT_ALLOWED");
    expect((error as GllamError).message).toContain("takes DELETE");
  });

  test("every route's path parameters and query fields are fields of its operation's input", () => {
    for (const route of ROUTES) {
      const names = [...(route.path.match(/\{(\w+)\}/g) ?? [])].map((p) => p.slice(1, -1));
      expect(Object.keys(route.params ?? {}).sort()).toEqual(names.sort());
      for (const field of [...Object.values(route.params ?? {}), ...(route.query ?? [])]) expect(fieldJsonSchema(route.operation, field)).not.toEqual({});
    }
  });
});
