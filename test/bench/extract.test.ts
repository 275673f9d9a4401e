import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { runExtractBench } from "../../src/bench/extract.ts";
import { locomoFileOf, readDevConversation, locomoTestFile } from "../extraction/locomo-script.ts";
import { makeTempDir } from "../helpers.ts";
import { startStubServer, type StubServer } from "../llm/stub-server.ts";

const locomo = locomoTestFile();
let stub: StubServer;
beforeAll(async () => {
  stub = await startStubServer({ rules: [{ matchAny: "logical fallacies", reply: { json: { findings: [] } } }, { reply: { generate: "extraction" } }] });
});
afterAll(() => stub.stop());

test("gllam bench extract reports overhead and tokens per 1,000 turns from the server's usage", async () => {
  const file = join(makeTempDir(), "two-sessions.json");
  await Bun.write(file, locomoFileOf(readDevConversation(locomo, 2)));
  const result = await runExtractBench({ data: file, llmServer: stub.url, conversations: 1, concurrency: 1, judge: true });
  expect(result.sessions).toBe(2);
  expect(result.facts).toBeGreaterThan(0);
  // One extraction request per session, one judge request per quoted fact.
  expect(result.requests).toBe(stub.stats().answered);
  expect(result.requests).toBe(2 + result.facts);
  expect(result.prompt_tokens_per_1000_turns).toBe(Math.round((stub.stats().promptTokens * 1000) / result.turns));
  expect(result.overhead_ms_per_turn).toBeGreaterThan(0);
});
