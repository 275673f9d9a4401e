import { expect, test } from "bun:test";
import { join } from "node:path";
import { answerInContext, evidenceRecall } from "../../src/bench/context.ts";
import { tinyLocomo } from "../fixtures/tiny-locomo.ts";
import { makeTempDir, runGllam } from "../helpers.ts";

test("evidenceRecall: the share of the evidence documents in the context", () => {
  expect(evidenceRecall(new Set(["D1:1", "D1:2"]), new Set(["D1:2", "D2:5"]))).toBe(0.5);
  expect(evidenceRecall(new Set(["D1:1"]), new Set(["D1:1"]))).toBe(1);
  expect(evidenceRecall(new Set(), new Set())).toBe(0);
});

test("answerInContext: a short gold answer held verbatim, case and punctuation aside; long or no answers are not judged", () => {
  expect(answerInContext("- [e1] Ann: My cat is called PIXEL!", "Pixel")).toBe(true);
  expect(answerInContext("- [e1] Ann: Pixels everywhere", "Pixel")).toBe(false);
  // A citation's numbers are ids, not content: "3" is not found in "[e3]" or "[links 3, 4]".
  expect(answerInContext("- [e3 excerpt] Ann: we have kids\n- A **x** B [links 3, 4]", "3")).toBe(false);
  expect(answerInContext("- [e1] Ann: we have 3 kids", "3")).toBe(true);
  // Nor is the query the title echoes, nor a session heading's id; the day of a heading is content.
  expect(answerInContext('# Context for "Did Ann visit Porto?"\n_intent: factual_\n\n## Episodes\n[e1] Ann: yes', "Porto")).toBe(false);
  expect(answerInContext("### session conv-1/session_3 · 2023-05-08\n[e1] Ann: hi", "3")).toBe(false);
  expect(answerInContext("### 2022-05-08\n[e1] Ann: hi", "2022")).toBe(true);
  expect(answerInContext("anything", "a much longer gold answer")).toBeUndefined();
  expect(answerInContext("anything", undefined)).toBeUndefined();
});

test("gllam bench context scores the evidence in the assembled context, by category, within the budget", async () => {
  const dir = makeTempDir();
  const data = join(dir, "locomo.json");
  const out = join(dir, "context.json");
  await Bun.write(data, JSON.stringify(tinyLocomo()));
  const run = runGllam(["bench", "context", "--dataset", "locomo", "--data", data, "--budget", "200", "--json", out]);
  expect(run.stderr).not.toContain("error");
  expect(run.code).toBe(0);
  const result = await Bun.file(out).json();
  expect(result).toMatchObject({ dataset: "locomo", budget: 200, questions: 3, turns: 44, static_embedder: expect.stringContaining("static") });
  expect(Object.keys(result.by_category).sort()).toEqual(["multi-hop", "single-hop"]);
  expect(result.by_category["single-hop"].questions).toBe(2);
  expect(result.overall.evidence_recall).toBeGreaterThan(0);
  expect(result.overall.evidence_recall).toBeLessThanOrEqual(1);
  expect(result.context_tokens_p95).toBeLessThanOrEqual(200);
  expect(result.answer_in_context.questions).toBe(3); // "Porto, tiles" is two words; the adversarial question is left out
  expect(result.answer_in_context.share).toBeLessThanOrEqual(1);
  expect(result.assembly_p95_ms).toBeGreaterThan(0);
  expect(result.assemblies).toBe(3);
  expect(result.first_assembly_ms).toBeGreaterThan(0);

  // --repeat: every question assembled three times over, all timed; the same contexts, scored once.
  const again = runGllam(["bench", "context", "--dataset", "locomo", "--data", data, "--budget", "200", "--json", out, "--repeat", "3"]);
  expect(again.code).toBe(0);
  const repeated = await Bun.file(out).json();
  expect(repeated.assemblies).toBe(9);
  expect({ ...repeated, assemblies: 3, assembly_p50_ms: 0, assembly_p95_ms: 0, first_assembly_ms: 0 }).toEqual({ ...result, assembly_p50_ms: 0, assembly_p95_ms: 0, first_assembly_ms: 0 });
  expect(runGllam(["bench", "context", "--dataset", "locomo", "--data", data, "--repeat", "0"]).stderr).toContain("--repeat must be an integer of at least 1");
});
