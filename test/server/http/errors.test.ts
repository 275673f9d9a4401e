/** How `gllam serve` refuses bad requests: every error is {"error": {"code", "message"}}, and the server keeps serving. */
import { afterAll, describe, expect, test } from "bun:test";
import { call, freshFolder, runCompiled, startServe } from "./serve-process.ts";

const served = await startServe(["--db", "memory.db", "--embedder", "static", "--workers", "0", "--max-body", "1k"]);
afterAll(() => served.stop());

const expectError = (reply: { status: number; json: any }, status: number, code: string, message?: RegExp) => {
  expect(reply.status).toBe(status);
  expect(Object.keys(reply.json)).toEqual(["error"]);
  expect(reply.json.error.code).toBe(code);
  expect(typeof reply.json.error.message).toBe("string");
  if (message) expect(reply.json.error.message).toMatch(message);
};

describe("gllam serve errors", () => {
  test("malformed JSON is 400 E_BAD_INPUT", async () => {
    expectError(await call(served, "POST", "/v1/recall", '{"query": '), 400, "E_BAD_INPUT", /not JSON/);
    expectError(await call(served, "POST", "/v1/recall", "[1, 2]"), 400, "E_BAD_INPUT", /JSON object/);
  });

  test("a schema violation is 400 with the path of the bad field, as the wire names it", async () => {
    expectError(await call(served, "POST", "/v1/episodes", { episodes: [{ session_id: "s", content: "ok" }, { session_id: "s", content: "  " }] }), 400, "E_BAD_INPUT", /episodes\.1\.content: must not be empty/);
    expectError(await call(served, "POST", "/v1/recall", { query: "x", k: 0 }), 400, "E_BAD_INPUT", /\bk: must be an integer in 1\.\.100/);
    expectError(await call(served, "POST", "/v1/facts", { subject: "A", relationship: "rel", object: "B", source: { handle: "h" } }), 400, "E_BAD_INPUT", /source\.doc_type/);
    expectError(await call(served, "GET", "/v1/nodes/A/facts?as_of=not-a-date"), 400, "E_BAD_INPUT", /as_of: must be a date/);
    expectError(await call(served, "DELETE", "/v1/episodes/abc"), 400, "E_BAD_INPUT", /\bid: .*number/);
    expectError(await call(served, "GET", "/v1/stats?verbose=1"), 400, "E_BAD_INPUT", /unknown query parameter "verbose"/);
  });

  test("unknown routes are 404, a known path with another method 405 with Allow", async () => {
    expectError(await call(served, "GET", "/v1/nothing-here"), 404, "E_NOT_FOUND");
    // "/" is the memory browser (test/server/browser/); other paths outside /v1/ are still 404.
    expectError(await call(served, "GET", "/no-such-page"), 404, "E_NOT_FOUND");
    const wrong = await call(served, "PUT", "/v1/recall", { query: "x" });
    expectError(wrong, 405, "E_METHOD_NOT_ALLOWED");
    expect(wrong.headers.get("allow")).toBe("POST");
    expectError(await call(served, "GET", "/v1/episodes/3"), 405, "E_METHOD_NOT_ALLOWED");
  });

  test("a missing node is 404 E_NOT_FOUND", async () => {
    expectError(await call(served, "GET", "/v1/nodes/Nobody/facts"), 404, "E_NOT_FOUND", /Nobody/);
  });

  test("a body over --max-body is 413 E_TOO_LARGE, declared or streamed", async () => {
    const big = JSON.stringify({ query: "x".repeat(2000) });
    expectError(await call(served, "POST", "/v1/recall", big), 413, "E_TOO_LARGE");
    expectError(await call(served, "POST", "/v1/recall", JSON.stringify({ query: "z".repeat(3_000_000) })), 413, "E_TOO_LARGE");
    const chunks = [new TextEncoder().encode('{"query": "'), new TextEncoder().encode("y".repeat(2000)), new TextEncoder().encode('"}')];
    const stream = new ReadableStream({
      pull(controller) {
        const next = chunks.shift();
        if (next) controller.enqueue(next);
        else controller.close();
      },
    });
    const response = await fetch(`${served.url}/v1/recall`, { method: "POST", body: stream, headers: { "content-type": "application/json" } });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("E_TOO_LARGE");
  });

  test("a second server on the same port refuses to start, saying so", async () => {
    const port = new URL(served.url).port;
    const second = await runCompiled(["serve", "--port", port, "--embedder", "static", "--workers", "0"], freshFolder());
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`127.0.0.1:${port} is in use`);
  });

  test("after all of that the server still answers", async () => {
    expect((await call(served, "POST", "/v1/recall", { query: "anything" })).status).toBe(200);
  });
});
