/** Who may use `gllam serve`: loopback without a token; any other host only with one, sent as a bearer token. */
import { describe, expect, test } from "bun:test";
import { call, freshFolder, runCompiled, startServe } from "./serve-process.ts";

const STATIC = ["--embedder", "static", "--workers", "0"];

describe("gllam serve auth", () => {
  test("a non-loopback host without a token refuses to start, saying why", async () => {
    const where = freshFolder();
    const run = await runCompiled(["serve", "--host", "0.0.0.0", "--port", "0", ...STATIC], where);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("refusing to serve on 0.0.0.0 without a token");
    expect(run.stderr).toContain("[E_CONFIG]");
  });

  test("0.0.0.0 with a token requires the bearer on every route but /health", async () => {
    const served = await startServe(["--host", "0.0.0.0", "--token", "s3cret-token", ...STATIC]);
    try {
      const local = { url: served.url.replace("0.0.0.0", "127.0.0.1") };
      expect((await call(local, "GET", "/health")).status).toBe(200);
      const missing = await call(local, "GET", "/v1/stats");
      expect(missing.status).toBe(401);
      expect(missing.json.error.code).toBe("E_UNAUTHORIZED");
      expect((await call(local, "GET", "/openapi.json")).status).toBe(401);
      expect((await call(local, "POST", "/v1/recall", { query: "x" }, { authorization: "Bearer wrong" })).json.error.code).toBe("E_UNAUTHORIZED");
      expect((await call(local, "GET", "/v1/stats", undefined, { authorization: "Bearer s3cret-token" })).status).toBe(200);
      const doc = await call(local, "GET", "/openapi.json", undefined, { authorization: "Bearer s3cret-token" });
      expect(doc.json.security).toEqual([{ bearer: [] }]);
    } finally {
      await served.stop();
    }
  });

  test("$GLLAM_TOKEN is the token when --token is not given, and loopback checks it too", async () => {
    const where = freshFolder();
    const served = await startServe(STATIC, { ...where, env: { ...where.env, GLLAM_TOKEN: "from-env" } });
    try {
      expect((await call(served, "GET", "/v1/stats")).status).toBe(401);
      expect((await call(served, "GET", "/v1/stats", undefined, { authorization: "Bearer from-env" })).status).toBe(200);
    } finally {
      await served.stop();
    }
  });
});
