import { describe, expect, spyOn, test } from "bun:test";
import { ERROR_CODES, GllamError } from "../../../src/gllam/types.ts";
import { errorResponse, HTTP_STATUS } from "../../../src/server/http/status.ts";

describe("HTTP status of errors", () => {
  test("every error code has a status", () => {
    for (const code of ERROR_CODES) expect(HTTP_STATUS[code]).toBeGreaterThanOrEqual(400);
  });

  test("a GllamError answers its code's status with {error: {code, message}}", async () => {
    const response = errorResponse(new GllamError("E_BUSY", "another writer"));
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ error: { code: "E_BUSY", message: "another writer" } });
  });

  test("anything else is 500 E_INTERNAL, logged to stderr, its details kept off the wire", async () => {
    const logged = spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      const response = errorResponse(new TypeError("secret detail"));
      expect(response.status).toBe(500);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("E_INTERNAL");
      expect(body.error.message).not.toContain("secret detail");
      expect(String(logged.mock.calls[0]?.[0])).toContain("secret detail");
    } finally {
      logged.mockRestore();
    }
  });
});
