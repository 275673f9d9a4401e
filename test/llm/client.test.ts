import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { LlmConfigSchema } from "../../src/config/prompts.ts";
import { chatUrlOf, type LlmEndpoint } from "../../src/llm/endpoints.ts";
import { LlmLayer, type LlmClient } from "../../src/llm/client.ts";
import { expectGllamError } from "../helpers.ts";
import { startStubServer, type StubScript, type StubServer } from "./stub-server.ts";

const Answer = v.object({ city: v.string(), year: v.number() });
const GOOD = { city: "Paris", year: 2021 };

let stub: StubServer;
beforeAll(async () => {
  stub = await startStubServer();
});
afterAll(() => stub.stop());

/** A client of the strong role on the stub, with fast retries so the tests stay quick. */
function clientFor(script: StubScript, config: Partial<v.InferInput<typeof LlmConfigSchema>> = {}, model = "m1", headers: Record<string, string> = {}): { client: LlmClient; layer: LlmLayer } {
  stub.setScript(script);
  const endpoint: LlmEndpoint = { role: "strong", server: stub.url, chatUrl: chatUrlOf(stub.url), model, headers };
  const layer = new LlmLayer({ strong: endpoint, fast: undefined }, v.parse(LlmConfigSchema, { retry_base_ms: 5, max_retries: 3, ...config }));
  return { client: layer.strong!, layer };
}

const ask = (client: LlmClient, text = "where?") => client.structured(Answer, [{ role: "system", content: "You extract." }, { role: "user", content: text }], "test item");

describe("structured output", () => {
  test("sends the schema as json_schema, validates the answer and counts usage", async () => {
    const { client, layer } = clientFor({ rules: [{ match: "where", reply: { json: GOOD } }] });
    expect(await ask(client)).toEqual(GOOD);
    expect(stub.requests[0]!.responseFormat).toBe("json_schema");
    expect(stub.requests[0]!.messages[0]!.content).toContain('"city"');
    const usage = layer.usage();
    expect(usage.strong.requests).toBe(1);
    expect(usage.total.promptTokens).toBe(stub.stats().promptTokens);
    expect(usage.total.completionTokens).toBe(stub.stats().completionTokens);
  });

  test("fenced JSON and <think> blocks are stripped", async () => {
    const { client } = clientFor({ rules: [{ reply: { json: GOOD, fence: true, think: "the user wants {a city}" } }] });
    expect(await ask(client)).toEqual(GOOD);
  });

  test("a wrong schema gets one repair round quoting the problem", async () => {
    const { client, layer } = clientFor({ rules: [{ match: "could not be used", reply: { json: GOOD } }, { reply: { json: { city: "Paris" } } }] });
    expect(await ask(client)).toEqual(GOOD);
    expect(stub.requests).toHaveLength(2);
    expect(stub.requests[1]!.lastUser).toMatch(/year/);
    expect(layer.usage().strong.repairs).toBe(1);
  });

  test("truncated JSON twice is E_LLM_BAD_OUTPUT naming the item", async () => {
    const { client } = clientFor({ rules: [{ reply: { json: GOOD, truncate: true } }] });
    await expectGllamError(ask(client), "E_LLM_BAD_OUTPUT", /^test item: .*not valid JSON/);
    expect(stub.requests).toHaveLength(2);
  });

  test("a server refusing json_schema steps down to json_object, then to none, and remembers", async () => {
    const { client } = clientFor({ refuseFormats: ["json_schema", "json_object"], rules: [{ reply: { json: GOOD } }] });
    expect(await ask(client)).toEqual(GOOD);
    expect(stub.requests.map((r) => r.responseFormat)).toEqual(["json_schema", "json_object", undefined]);
    expect(await ask(client)).toEqual(GOOD);
    expect(stub.requests.at(-1)!.responseFormat).toBeUndefined();
    expect(client.formatMode).toBe("none");
  });
});

describe("retries and failures", () => {
  test("429 with Retry-After, 500 and a dropped connection are retried", async () => {
    const { client, layer } = clientFor({ rules: [{ reply: [{ status: 429, retryAfter: 0 }, { status: 500 }, { json: GOOD, reset: true }, { json: GOOD }] }] });
    expect(await ask(client)).toEqual(GOOD);
    expect(stub.requests).toHaveLength(4);
    expect(layer.usage().strong.retries).toBe(3);
  });

  test("retries stop after max_retries with the server's message", async () => {
    const { client } = clientFor({ rules: [{ reply: { status: 503, error: "overloaded" } }] }, { max_retries: 2 });
    await expectGllamError(ask(client), "E_LLM_RESPONSE", /503: overloaded/);
    expect(stub.requests).toHaveLength(3);
  });

  test("an unknown model is E_LLM_MODEL, a bad key E_LLM_AUTH, neither retried", async () => {
    const { client } = clientFor({ models: ["served"], rules: [{ reply: { json: GOOD } }] }, {}, "nope");
    await expectGllamError(ask(client), "E_LLM_MODEL", /"nope" is not served/);
    expect(stub.requests).toHaveLength(1);
    const keyed = clientFor({ apiKey: "k1", rules: [{ reply: { json: GOOD } }] }, {}, "m1", { Authorization: "Bearer wrong" });
    await expectGllamError(ask(keyed.client), "E_LLM_AUTH", /credentials/);
    const right = clientFor({ apiKey: "k1", rules: [{ reply: { json: GOOD } }] }, {}, "m1", { Authorization: "Bearer k1" });
    expect(await ask(right.client)).toEqual(GOOD);
  });

  test("a slow server past the timeout is E_LLM_UNREACHABLE", async () => {
    const { client } = clientFor({ rules: [{ reply: { json: GOOD, delayMs: 1500 } }] }, { timeout_seconds: 1 });
    await expectGllamError(ask(client), "E_LLM_UNREACHABLE", /did not answer within 1 s/);
  });

  test("nobody listening is E_LLM_UNREACHABLE at once", async () => {
    const endpoint: LlmEndpoint = { role: "fast", server: "http://127.0.0.1:9", chatUrl: chatUrlOf("http://127.0.0.1:9"), model: "m", headers: {} };
    const layer = new LlmLayer({ strong: undefined, fast: endpoint });
    await expectGllamError(ask(layer.fast!), "E_LLM_UNREACHABLE", /cannot reach LLM server http:\/\/127\.0\.0\.1:9/);
  });
});

test("requests to one server never exceed its concurrency limit", async () => {
  const { client } = clientFor({ rules: [{ reply: { json: GOOD, delayMs: 30 } }] }, { concurrency_per_server: 2 });
  await Promise.all(Array.from({ length: 6 }, () => ask(client)));
  expect(stub.stats().answered).toBe(6);
  expect(stub.stats().mostInFlight).toBe(2);
});
