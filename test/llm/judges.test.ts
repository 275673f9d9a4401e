import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Gllam } from "../../src/gllam/gllam.ts";
import { createLlmFallacyJudge } from "../../src/llm/judges.ts";
import { runOperation } from "../../src/gllam/operation.ts";
import { addFact } from "../../src/gllam/operations.ts";
import { makeTempDir, openTempGllam } from "../helpers.ts";
import { layerOn, noLlm } from "./stub-layer.ts";
import { startStubServer, type StubServer } from "./stub-server.ts";

let stub: StubServer;
const dir = makeTempDir();
beforeAll(async () => {
  stub = await startStubServer();
});
afterAll(() => stub.stop());

/** Both roles on the stub (FAST is what the judges use). */
const layer = () => layerOn(stub.url, { strong: { model: "big" }, fast: { model: "small" }, config: { max_retries: 0 } });

async function memory(): Promise<Gllam> {
  const gllam = await openTempGllam(dir, { staticEmbedder: null, llm: layer() });
  for (const id of ["deploy", "outage", "caddy", "go"]) gllam.upsertNode({ id, name: id, scope: "default" });
  return gllam;
}

describe("FallacyJudge over FAST", () => {
  const claim = "After we deployed on Friday, so the deploy caused the outage";

  test("a rule cue the model rejects loses its impact; the verdict is the model's", async () => {
    const gllam = await memory();
    stub.setScript({ rules: [{ matchAny: "Rule cues: post_hoc", reply: { json: { rejected: ["post_hoc"], findings: [] } } }] });
    const judged = await gllam.addEdgeJudged({ sourceId: "deploy", targetId: "outage", relationship: "causes", claim }, createLlmFallacyJudge(gllam.llm.fast!));
    expect(judged.relationship).toBe("causes");
    expect(judged.fallacies).toEqual([]);
    expect(stub.requests[0]!.model).toBe("small");
    gllam.close();
  });

  test("the model finds a straw man the rules miss; a failing judge leaves the rule cues", async () => {
    const gllam = await memory();
    stub.setScript({ rules: [{ reply: { json: { findings: [{ kind: "straw_man", cue: "they want to rewrite everything" }] } } }] });
    const found = await gllam.addEdgeJudged({ sourceId: "caddy", targetId: "go", relationship: "depends_on", claim: "Caddy depends on Go" }, createLlmFallacyJudge(gllam.llm.fast!));
    expect(found.fallacies.map((f) => [f.kind, f.detector])).toEqual([["straw_man", "llm:small"]]);
    stub.setScript({ rules: [{ reply: { status: 500 } }] });
    const fallback = await gllam.addEdgeJudged({ sourceId: "deploy", targetId: "outage", relationship: "causes", claim }, createLlmFallacyJudge(gllam.llm.fast!));
    expect(fallback.judgeError).toMatch(/fallacy judge llm:small failed/);
    expect(fallback.fallacies.map((f) => [f.kind, f.detector])).toEqual([["post_hoc", "rules"]]);
    expect(fallback.relationship).not.toBe("causes");
    gllam.close();
  });
});

test("add_fact (fact add, MCP, HTTP) asks the FAST judge about the claim's words", async () => {
  const gllam = await memory();
  const claim = "After we deployed on Friday, so the deploy caused the outage";
  stub.setScript({ rules: [{ matchAny: "Rule cues: post_hoc", reply: { json: { rejected: ["post_hoc"] } } }] });
  const kept = await runOperation(gllam, addFact, { subject: "deploy", relationship: "causes", object: "outage", claim });
  expect([kept.relationship, kept.fallacies.length]).toEqual(["causes", 0]);
  stub.setScript({ rules: [{ reply: { status: 500 } }] });
  const ruled = await runOperation(gllam, addFact, { subject: "outage", relationship: "causes", object: "deploy", claim: "After the outage, so the outage caused the deploy" });
  expect(ruled.fallacies.map((f) => f.detector)).toEqual(["rules"]);
  expect(ruled.notes.at(-1)).toMatch(/fallacy judge llm:small failed: .*: the rule cues alone were applied$/);
  gllam.close();
});

describe("Categorizer over FAST", () => {
  test("orphans are filed where the model says, and by embeddings when it fails, each saying which", async () => {
    const gllam = await memory();
    stub.setScript({ rules: [{ matchAny: "taxonomy", reply: { json: { placements: [{ node_id: "caddy", path: "/Software/Servers", reason: "a web server" }] } } }] });
    const batch = await gllam.processUncategorizedBatch(10);
    const caddy = batch.categorized.find((c) => c.nodeId === "caddy")!;
    expect(caddy.path).toBe("/Software/Servers");
    expect(caddy.reason).toBe("llm:small: a web server");
    // The nodes the model left out were filed by the embedding categorizer, and say so.
    const others = batch.categorized.filter((c) => c.nodeId !== "caddy");
    expect(others.length).toBeGreaterThan(0);
    for (const other of others) expect(other.reason).toMatch(/^embedding \(the model left it out\)/);
    gllam.upsertNode({ id: "nginx", name: "nginx", scope: "default" });
    stub.setScript({ rules: [{ reply: { status: 500 } }] });
    const failed = await gllam.processUncategorizedBatch(10);
    expect(failed.categorized[0]!.reason).toMatch(/^embedding \(the model failed: .*500/);
    gllam.close();
  });
});

describe("caveat summaries over FAST", () => {
  test("hub summaries are written by the model; the template when it fails, and the report says which", async () => {
    const gllam = await memory();
    for (const [i, target] of ["go", "outage", "deploy"].entries()) {
      gllam.addEdge({ sourceId: "caddy", targetId: target, relationship: `rel_${i}`, caveats: `only on Linux ${i}` });
    }
    stub.setScript({ rules: [{ matchAny: "Summarise the caveats", reply: { json: { summary: "Mostly Linux-only." } } }, { reply: { json: { placements: [] } } }] });
    const report = await gllam.enterMemorySleepCycle(0, { minCaveats: 2, maxInline: 1 });
    expect(report.caveatSummariser).toBe("llm:small");
    expect(report.categorizer).toBe("llm:small");
    expect(gllam.db().query<{ s: string }, []>("SELECT caveat_summary AS s FROM semantic_nodes WHERE id = 'caddy'").get()!.s).toBe("Mostly Linux-only.");
    stub.setScript({ rules: [{ reply: { status: 500 } }] });
    const fallback = await gllam.enterMemorySleepCycle(0, { minCaveats: 2, maxInline: 1 });
    expect(fallback.fallbacks[0]).toMatch(/^caddy: llm:small failed, template used/);
    expect(gllam.db().query<{ s: string }, []>("SELECT caveat_summary AS s FROM semantic_nodes WHERE id = 'caddy'").get()!.s).toMatch(/^2 more caveats/);
    gllam.close();
  });
});

test("without an LLM the rule-based defaults answer and say so", async () => {
  const gllam = await openTempGllam(dir, { staticEmbedder: null, llm: noLlm() });
  const report = await gllam.enterMemorySleepCycle(0);
  expect([report.caveatSummariser, report.categorizer]).toEqual(["template", "embedding"]);
  gllam.close();
});
