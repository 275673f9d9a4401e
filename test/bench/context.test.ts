import { expect, test } from "bun:test";
import { join } from "node:path";
import { evidenceRecall } from "../../src/bench/context.ts";
import { makeTempDir, runGllam } from "../helpers.ts";

test("evidenceRecall: the share of the evidence documents in the context", () => {
  expect(evidenceRecall(new Set(["D1:1", "D1:2"]), new Set(["D1:2", "D2:5"]))).toBe(0.5);
  expect(evidenceRecall(new Set(["D1:1"]), new Set(["D1:1"]))).toBe(1);
  expect(evidenceRecall(new Set(), new Set())).toBe(0);
});

/** A LoCoMo-shaped conversation: each question's evidence is one turn that answers it in its own words. */
function tinyLocomo() {
  const turns = [
    ["Ann", "I adopted a grey cat named Pixel last week."],
    ["Bo", "Congrats! I started learning the cello."],
    ["Ann", "My sister moved to Porto for a new job."],
    ["Bo", "Porto is lovely, the tiles are beautiful."],
    ...Array.from({ length: 40 }, (_, i) => [i % 2 ? "Bo" : "Ann", `Filler chat number ${i} about the weather and the news today.`]),
  ];
  const session_1 = turns.map(([speaker, text], i) => ({ speaker, dia_id: `D1:${i + 1}`, text }));
  return [
    {
      sample_id: "tiny",
      conversation: { speaker_a: "Ann", speaker_b: "Bo", session_1_date_time: "1:56 pm on 8 May, 2023", session_1 },
      qa: [
        { question: "What is the name of Ann's cat?", answer: "Pixel", evidence: ["D1:1"], category: 4 },
        { question: "Which instrument is Bo learning?", answer: "cello", evidence: ["D1:2"], category: 4 },
        { question: "Where did Ann's sister move and what is it known for?", answer: "Porto, tiles", evidence: ["D1:3", "D1:4"], category: 1 },
        { question: "An adversarial question", answer: "", evidence: ["D1:1"], category: 5 },
      ],
    },
  ];
}

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
  expect(result.assembly_p95_ms).toBeGreaterThan(0);
});
