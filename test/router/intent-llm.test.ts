import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Gllam } from "../../src/gllam/gllam.ts";
import { classifyIntent } from "../../src/router/intent.ts";
import { refineIntent } from "../../src/router/intent-llm.ts";
import { makeTempDir, openTempGllam } from "../helpers.ts";
import { layerOn } from "../llm/stub-layer.ts";
import { startStubServer, type StubServer } from "../llm/stub-server.ts";

const dir = makeTempDir();
let stub: StubServer;
let gllam: Gllam;
const question = "What's the story behind the outage?";

beforeAll(async () => {
  stub = await startStubServer();
  // STRONG and FAST on the stub: the intent is FAST's job.
  gllam = await openTempGllam(dir, { staticEmbedder: null, llm: layerOn(stub.url, { strong: { model: "big" }, fast: { model: "small" }, config: { max_retries: 0 } }) });
  gllam.remember([{ sessionId: "s1", speaker: "Ann", content: "The outage came from a full disk on the database host.", occurredAt: Date.parse("2024-03-01") }]);
});
afterAll(async () => {
  gllam.close();
  await stub.stop();
});

test("without a classifier the rules answer and say so", async () => {
  const rules = classifyIntent(question);
  expect(await refineIntent(question, rules, undefined)).toEqual({ intent: rules, source: { by: "rules" } });
});

describe("the FAST LLM refines the rules' intents", () => {
  test("the model's intents are used, and the context says who classified", async () => {
    stub.setScript({ rules: [{ matchAny: "Rule-based guesses: factual", reply: { json: { intents: ["causal", "factual"] } } }] });
    const before = stub.requests.length;
    const context = await gllam.routeAndAssemble(question);
    expect(context.intent.intents).toEqual(["factual", "causal"]);
    expect(context.intentSource).toEqual({ by: "llm:small" });
    expect(context.markdown).toContain("intent (llm:small): factual, causal");
    expect(stub.requests.slice(before).map((r) => r.model)).toEqual(["small"]);
  });

  test("a failing model leaves the rules' intents, and the reason", async () => {
    stub.setScript({ rules: [{ reply: { status: 500 } }] });
    const context = await gllam.routeAndAssemble(question);
    expect(context.intent.intents).toEqual(classifyIntent(question).intents);
    expect(context.intentSource.by).toBe("rules");
    expect(context.intentSource.error).toMatch(/intent classifier llm:small failed/);
    expect(context.markdown).toContain("intent (rules): factual");
  });

  test("an answer outside the intent list is not used", async () => {
    stub.setScript({ rules: [{ reply: { json: { intents: ["gossip"] } } }] });
    const context = await gllam.routeAndAssemble(question);
    expect(context.intentSource.by).toBe("rules");
    expect(context.intent.intents).toEqual(classifyIntent(question).intents);
  });
});
