import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { beamQuestions, beamScenarios, sourceIds } from "../../src/bench/beam-scenarios.ts";
import { expectGllamError, makeTempDir, runGllam } from "../helpers.ts";

describe("BEAM probing questions as evidence", () => {
  test.each([
    ["a list", [4, 60], ["4", "60"]],
    ["lists by role", { first_statement: [58], second_statement: [24] }, ["58", "24"]],
    ["nested and scalar", { a: [[1, "2"]], b: 3 }, ["1", "2", "3"]],
    ["nothing", undefined, []],
    ["null", null, []],
  ])("sourceIds: %s", (_name, value, ids) => {
    expect(sourceIds(value)).toEqual(ids);
  });

  test("beamQuestions: grouped by ability; ids that name no turn are dropped; a question with none left (abstention) is left out", () => {
    const probing = {
      information_extraction: [{ question: "When does my sprint end?", answer: "March 29", source_chat_ids: [2, 999] }],
      knowledge_update: [{ question: "What is the response time now?", answer: "250ms", source_chat_ids: { original_info: [1], updated_info: [3] } }],
      abstention: [{ question: "What did my manager say?", ideal_response: "not discussed" }],
    };
    expect(beamQuestions(probing, "q.json", new Set(["1", "2", "3"]))).toEqual([
      { text: "When does my sprint end?", group: "information_extraction", relevant: new Set(["2"]), answer: "March 29" },
      { text: "What is the response time now?", group: "knowledge_update", relevant: new Set(["1", "3"]), answer: "250ms" },
    ]);
    expect(() => beamQuestions([], "q.json", new Set())).toThrow(/q\.json: expected \{ability: \[questions\]\}/);
  });
});

/** A BEAM-shaped chat: one batch of two sessions, each a user turn and the assistant's answer. */
function writeChat(folder: string, topic: string) {
  mkdirSync(join(folder, "probing_questions"), { recursive: true });
  const turn = (id: number, role: string, content: string) => ({ role, id, index: `1,${id}`, content: role === "user" ? `${content} ->-> 1,${id}` : content });
  const chat = [
    {
      batch_number: 1,
      time_anchor: "March-15-2024",
      turns: [
        [turn(0, "user", `I am planning the ${topic} sprint, it ends on March 29.`), turn(1, "assistant", "Noted, two weeks from now.")],
        [turn(2, "user", `The ${topic} dashboard API responds in 250ms on average.`), turn(3, "assistant", "That is within budget.")],
      ],
    },
  ];
  const probing = {
    information_extraction: [{ question: `When does my ${topic} sprint end?`, answer: "March 29", source_chat_ids: [0] }],
    knowledge_update: [{ question: `How fast is the ${topic} dashboard API?`, answer: "250ms", source_chat_ids: { original_info: [2] } }],
    abstention: [{ question: "What did my manager say?", ideal_response: "not discussed" }],
  };
  return Promise.all([Bun.write(join(folder, "chat.json"), JSON.stringify(chat)), Bun.write(join(folder, "probing_questions", "probing_questions.json"), JSON.stringify(probing))]);
}

describe("BEAM chats as benchmark scenarios", () => {
  const dir = makeTempDir();
  const root = join(dir, "100K");

  test("one scenario per chat folder, in number order, its messages the documents", async () => {
    await Promise.all([writeChat(join(root, "10"), "budget"), writeChat(join(root, "2"), "travel")]);
    const scenarios = await beamScenarios(root);
    expect(scenarios.map((s) => s.unit.episodes[0]!.content)).toEqual(["I am planning the travel sprint, it ends on March 29.", "I am planning the budget sprint, it ends on March 29."]);
    expect(scenarios[0]!.questions.map((q) => q.group)).toEqual(["information_extraction", "knowledge_update"]);
    expect(scenarios[0]!.docOf({ sessionId: "x", metadata: { id: 2 } })).toBe("2");
    expect((await beamScenarios(join(root, "2"))).length).toBe(1); // one chat's own folder
  });

  test("a folder without chats is an error naming it", async () => {
    mkdirSync(join(dir, "empty"));
    await expectGllamError(beamScenarios(join(dir, "empty")), "E_NOT_FOUND", /no BEAM chats under .*empty/);
    await expectGllamError(beamScenarios(join(dir, "absent")), "E_NOT_FOUND", /no BEAM folder at .*absent/);
  });

  test("gllam bench context --dataset beam scores evidence by ability", async () => {
    const out = join(dir, "beam.json");
    const run = runGllam(["bench", "context", "--dataset", "beam", "--data", root, "--budget", "300", "--json", out]);
    expect(run.code).toBe(0);
    const result = await Bun.file(out).json();
    expect(result).toMatchObject({ dataset: "beam", questions: 4, turns: 8 });
    expect(Object.keys(result.by_category).sort()).toEqual(["information_extraction", "knowledge_update"]);
    // Two turns a chat fit 300 tokens: every evidence message is in its context.
    expect(result.overall.evidence_recall).toBe(1);
  });
});
