import { expect, test } from "bun:test";
import * as v from "valibot";
import { readEnv } from "../../src/config/env.ts";
import { LlmConfigSchema } from "../../src/config/prompts.ts";
import { backoffDelay, parseRetryAfter } from "../../src/llm/backoff.ts";
import { chatUrlOf, OPENROUTER_BASE_URL, resolveLlmEndpoints } from "../../src/llm/endpoints.ts";
import { expectGllamError } from "../helpers.ts";

const env = (vars: Record<string, string>) => readEnv(vars);

test("chat URLs: a bare server gets /v1, a /v1 base keeps it", () => {
  expect(chatUrlOf("http://127.0.0.1:8080")).toBe("http://127.0.0.1:8080/v1/chat/completions");
  expect(chatUrlOf("https://openrouter.ai/api/v1/")).toBe("https://openrouter.ai/api/v1/chat/completions");
  expect(chatUrlOf("http://h:11434/v1/chat/completions")).toBe("http://h:11434/v1/chat/completions");
});

test("each role from its variables; a missing role borrows the other; nothing set is no LLM", () => {
  const both = resolveLlmEndpoints({}, env({ STRONG_TEXT_SERVER: "http://s:1", STRONG_LLM_MODEL: "big", FAST_TEXT_SERVER: "http://f:2", FAST_LLM_MODEL: "small" }));
  expect([both.strong!.server, both.strong!.model, both.fast!.server, both.fast!.model]).toEqual(["http://s:1", "big", "http://f:2", "small"]);
  const one = resolveLlmEndpoints({}, env({ STRONG_TEXT_SERVER: "http://s:1" }));
  expect(one.fast!.server).toBe("http://s:1");
  expect(one.fast!.model).toBe("default");
  expect(resolveLlmEndpoints({}, env({}))).toEqual({ strong: undefined, fast: undefined });
});

test("flags beat the environment, which beats the config file", () => {
  const config = v.parse(LlmConfigSchema, { strong: { server: "http://config:1", model: "c" }, fast: { server: "http://config:2" } });
  const fromConfig = resolveLlmEndpoints({}, env({}), config);
  expect(fromConfig.strong!.server).toBe("http://config:1");
  const fromEnv = resolveLlmEndpoints({}, env({ STRONG_TEXT_SERVER: "http://env:1" }), config);
  expect(fromEnv.strong!.server).toBe("http://env:1");
  const fromFlags = resolveLlmEndpoints({ llmServer: "http://flag:1", llmModel: "f" }, env({ STRONG_TEXT_SERVER: "http://env:1" }), config);
  expect([fromFlags.strong!.server, fromFlags.fast!.server, fromFlags.fast!.model]).toEqual(["http://flag:1", "http://flag:1", "f"]);
});

test("OpenRouter: its base URL for a model alone, its key and attribution headers", () => {
  const { strong } = resolveLlmEndpoints({}, env({ OPENROUTER_API_KEY: "sk-or-1", STRONG_LLM_MODEL: "qwen/qwen-plus" }));
  expect(strong!.server).toBe(OPENROUTER_BASE_URL);
  expect(strong!.headers.Authorization).toBe("Bearer sk-or-1");
  expect(strong!.headers["X-Title"]).toBe("GLLAM");
  expect(strong!.headers["HTTP-Referer"]).toBeDefined();
  expect(() => resolveLlmEndpoints({}, env({ STRONG_TEXT_SERVER: OPENROUTER_BASE_URL, STRONG_LLM_MODEL: "m" }))).toThrow(/OPENROUTER_API_KEY/);
  const local = resolveLlmEndpoints({}, env({ STRONG_TEXT_SERVER: "http://vllm:8000", LLM_API_KEY: "k" }));
  expect(local.strong!.headers).toEqual({ Authorization: "Bearer k" });
});

test("a model with no server anywhere is a config error", async () => {
  await expectGllamError(() => resolveLlmEndpoints({}, env({ STRONG_LLM_MODEL: "m" })), "E_CONFIG", /no server/);
});

test("backoff: Retry-After in seconds or as a date wins; else doubling with jitter", () => {
  expect(parseRetryAfter("3")).toBe(3000);
  expect(parseRetryAfter(new Date(10_000).toUTCString(), 4000)).toBe(6000);
  expect(parseRetryAfter("soon")).toBeUndefined();
  expect(backoffDelay(0, 100, 2500)).toBe(2500);
  expect(backoffDelay(3, 100, undefined, () => 0)).toBe(400);
  expect(backoffDelay(3, 100, undefined, () => 1)).toBe(800);
});

test("memory opened with --llm-server gets both roles on that server; without, no LLM", async () => {
  const { Gllam } = await import("../../src/gllam/gllam.ts");
  const withLlm = await Gllam.open(":memory:", { staticEmbedder: null, llm: { llmServer: "http://127.0.0.1:9", llmModel: "m" } });
  expect(withLlm.llm.strong!.describe()).toBe("strong model m at http://127.0.0.1:9");
  expect(withLlm.llm.fast!.endpoint.model).toBe("m");
  withLlm.close();
});
