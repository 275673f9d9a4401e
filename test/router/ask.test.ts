import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import * as v from "valibot";
import { LlmConfigSchema } from "../../src/config/prompts.ts";
import type { Gllam } from "../../src/gllam/gllam.ts";
import { LlmLayer } from "../../src/llm/client.ts";
import { chatUrlOf } from "../../src/llm/endpoints.ts";
import { checkCitations, contextCitations } from "../../src/router/ask.ts";
import { expectGllamError, makeTempDir, openTempGllam, REPO_ROOT } from "../helpers.ts";
import { startStubServer, type StubServer } from "../llm/stub-server.ts";

const dir = makeTempDir();
let stub: StubServer;
let gllam: Gllam;
let ids: number[];

beforeAll(async () => {
  stub = await startStubServer({
    rules: [
      { match: "Question: What is the name of Ann's cat?", reply: { json: { known: true, answer: "Pixel, a grey cat.", citations: ["e1", "[e1 #0]", "e999"] } } },
      { match: "Question: What is Ann's favourite colour?", reply: { json: { known: false, answer: "The context does not say.", citations: [] } } },
    ],
  });
  const llm = new LlmLayer({ strong: { role: "strong", server: stub.url, chatUrl: chatUrlOf(stub.url), model: "stub", headers: {} }, fast: undefined }, v.parse(LlmConfigSchema, { retry_base_ms: 1, max_retries: 1 }));
  gllam = await openTempGllam(dir, { llm });
  ids = gllam.remember([
    { sessionId: "s1", speaker: "Ann", content: "I adopted a grey cat named Pixel.", occurredAt: Date.parse("2023-05-08") },
    { sessionId: "s1", speaker: "Bo", content: "Lovely! I started the cello.", occurredAt: Date.parse("2023-05-08") },
  ]).ids;
});
afterAll(async () => {
  gllam.close();
  await stub.stop();
});

describe("ask", () => {
  test("answers from the assembled context, keeping only the citations the context holds", async () => {
    const result = await gllam.ask("What is the name of Ann's cat?");
    expect(result).toMatchObject({ answer: "Pixel, a grey cat.", known: true, citations: [`e${ids[0]}`], unknownCitations: 1 });
    const prompt = stub.requests.at(-1)!.messages.map((m) => m.content).join("\n");
    expect(prompt).toContain(`[e${ids[0]}] Ann: I adopted a grey cat named Pixel.`);
    expect(prompt).toContain("I don't know");
  });

  test("says it does not know when the model finds no answer in the context", async () => {
    const result = await gllam.ask("What is Ann's favourite colour?");
    expect(result).toMatchObject({ answer: "I don't know", known: false, citations: [] });
  });

  test("without an LLM it is E_CONFIG, saying how to name one", async () => {
    const bare = await openTempGllam(dir, { llm: new LlmLayer({ strong: undefined, fast: undefined }) });
    try {
      await expectGllamError(bare.ask("anything"), "E_CONFIG", /STRONG_TEXT_SERVER/);
    } finally {
      bare.close();
    }
  });

  test("gllam ask --llm-server prints the answer, its sources and, with --show-context, the context", async () => {
    const proc = Bun.spawn(["bun", join(REPO_ROOT, "src/cli/main.ts"), "ask", "What is the name of Ann's cat?", "--db", gllam.path, "--llm-server", stub.url, "--llm-model", "stub", "--show-context"], {
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toStartWith(`Pixel, a grey cat.\n\nSources: [e${ids[0]}]\n_(1 citation(s) not in the context were dropped)_\n\n---\n\n# Context for "What is the name of Ann's cat?"`);
  });
});

test("contextCitations and checkCitations: ids as the context writes them, the model's spellings normalised", () => {
  const markdown = "- [e12] Ann: hi\n- [e15 excerpt] Bo: … long …\n- A **x** B (trust 5) [link 4]\n- A -r-> B <-s- C [links 4, 7]\n- **t** (helpful 0/0): r [procedure deploy_caddy v2]\n- ⚠ c [contradiction contradiction:1:2; links 1, 2]\n- I said [e99 is] not a citation";
  const known = contextCitations(markdown);
  expect([...known].sort()).toEqual(["contradiction contradiction:1:2", "e12", "e15", "link 1", "link 2", "link 4", "link 7", "procedure deploy_caddy v2"]);
  expect(checkCitations(["[e12]", "e12 #3", "episode 12", "[e15 excerpt]", "link 7", "links 4", "procedure deploy_caddy v2", "e13", "e99", "link 99"], known)).toEqual({
    citations: ["e12", "e15", "link 7", "link 4", "procedure deploy_caddy v2"],
    unknown: 3,
  });
});
