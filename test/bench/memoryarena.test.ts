import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { arenaQuestions, arenaSteps, configOf, loadMemoryArena, parseArenaTask, writeMemoryArenaPlan } from "../../src/bench/memoryarena.ts";
import { openSourceBytes } from "../../src/episodic/formats/read-source.ts";
import { tinyArenaTasks, writeTinyArena } from "../fixtures/tiny-memoryarena.ts";
import { expectGllamError, makeTempDir } from "../helpers.ts";

const dir = makeTempDir();
const line = (task: object) => JSON.stringify(task);
/** Each step's sessions and the speakers of their turns: what memory gains before each subtask. */
const stepSummary = (task: ReturnType<typeof parseArenaTask>) => arenaSteps(task).map((turns) => turns.map((turn) => `${turn.session_id} ${turn.speaker ?? turn.role}`));

describe("each config's shape", () => {
  const cases = [
    {
      config: "bundled_shopping",
      task: tinyArenaTasks.bundled_shopping,
      answers: ['{"target_asin":"B00CAKEMIX","attributes":["gluten free","vanilla cake mix"]}', '{"target_asin":"B00FROSTING","attributes":["cream cheese","frosting"]}'],
      steps: [[], ["subtask-1 user", "subtask-1 assistant"]],
    },
    {
      config: "progressive_search",
      task: { id: 12, questions: ["Find the year the bridge opened.", "Find who designed it."], answers: ["1932", "John Bradfield"], backgrounds: null, extra: { kept: false } },
      answers: ["1932", "John Bradfield"],
      steps: [[], ["subtask-1 user", "subtask-1 assistant"]],
    },
    {
      // An empty result is no turn.
      config: "progressive_search",
      task: { id: 13, questions: ["Find the river.", "Find its length."], answers: ["", "3,000 km"] },
      answers: ["", "3,000 km"],
      steps: [[], ["subtask-1 user"]],
    },
    {
      config: "group_travel_planner",
      task: tinyArenaTasks.group_travel_planner,
      answers: ["Rock Inn", "Lucky Noodle House", "Lucky Noodle House"],
      steps: [["background-1 background"], ["subtask-1 user", "subtask-1 assistant"], ["subtask-2 user", "subtask-2 assistant"]],
    },
    {
      config: "formal_reasoning_math",
      task: tinyArenaTasks.formal_reasoning_math,
      answers: ["f(2) = 5", "g(2) = 25"],
      steps: [["subtask-1-background background"], ["subtask-1 user", "subtask-1 assistant", "subtask-2-background background"]],
    },
    {
      // A subtask without a background of its own gains none.
      config: "formal_reasoning_phys",
      task: { id: 1, paper_name: "p", backgrounds: ["Newton's second law: F = m a.", ""], questions: ["What force moves 2 kg at 3 m/s^2?", "And 4 kg?"], answers: ["6 N", "12 N"] },
      answers: ["6 N", "12 N"],
      steps: [["subtask-1-background background"], ["subtask-1 user", "subtask-1 assistant"]],
    },
  ];
  for (const c of cases) {
    test(`${c.config} ${c.task.id}`, () => {
      const task = parseArenaTask(line(c.task), "f.jsonl:1", c.config);
      expect(task.answers).toEqual(c.answers);
      expect(stepSummary(task)).toEqual(c.steps);
      expect(arenaQuestions(task).map((q) => [q.id, q.scope, q.category, q.position, q.gold])).toEqual(
        c.answers.map((gold, i) => [`${c.config}:${c.task.id}:${i + 1}`, `memoryarena-${c.config}-${c.task.id}`, c.config, i + 1, gold]),
      );
    });
  }

  test("a travel task with only its base person has the base person as its background", () => {
    const { backgrounds: _, ...task } = tinyArenaTasks.group_travel_planner;
    const parsed = parseArenaTask(line(task), "f.jsonl:1", "group_travel_planner");
    expect(parsed.shared).toHaveLength(1);
    expect(arenaSteps(parsed)[0]!.map((turn) => turn.content).join("\n")).toContain("Please plan a three-day trip from Tampa to Rockford");
  });

  test("steps are generic JSONL turns, dated in order: the background first, subtask i on day i", () => {
    const steps = arenaSteps(parseArenaTask(line(tinyArenaTasks.group_travel_planner), "f.jsonl:1", "group_travel_planner"));
    const records = [...openSourceBytes(steps.flat().map((turn) => JSON.stringify(turn)).join("\n"), "step.jsonl").records()];
    expect(records.filter((r) => "problem" in r)).toEqual([]);
    const episodes = records.flatMap((r) => ("episode" in r ? [r.episode] : []));
    expect(episodes.map((e) => [e.sessionId, e.role, e.speaker])).toEqual([
      ["background-1", "user", "background"],
      ["subtask-1", "user", ""],
      ["subtask-1", "assistant", ""],
      ["subtask-2", "user", ""],
      ["subtask-2", "assistant", ""],
    ]);
    const times = episodes.map((e) => Number(e.occurredAt));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(new Set(times).size).toBe(3);
  });
});

describe("files and folders", () => {
  test("a folder of config folders and files, in name order; the config from the folder or the file name", async () => {
    const root = await writeTinyArena(join(dir, "arena"));
    mkdirSync(join(root, "a", "b"), { recursive: true });
    await Bun.write(join(root, "a", "b", "too-deep.jsonl"), line({ id: 1, questions: ["q"], answers: ["a"] }));
    const tasks = loadMemoryArena(root);
    expect(tasks.map((t) => [t.config, t.id, t.where.slice(root.length)])).toEqual([
      ["bundled_shopping", "0", "/bundled_shopping/data.jsonl:1"],
      ["formal_reasoning_math", "3", "/formal_reasoning_math/data.jsonl:1"],
      ["group_travel_planner", "7", "/group_travel_planner.jsonl:1"],
    ]);
    expect(loadMemoryArena(join(root, "bundled_shopping", "data.jsonl")).map((t) => t.config)).toEqual(["bundled_shopping"]);
    expect(configOf("/x/my_tasks.jsonl")).toBe("my_tasks");
  });

  test("the plan: every subtask in order, and a step file per subtask", async () => {
    const root = await writeTinyArena(join(dir, "arena-plan"));
    const out = join(dir, "plan");
    expect(await writeMemoryArenaPlan(root, out)).toEqual({ tasks: 3, questions: 7 });
    const questions = readFileSync(join(out, "questions.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(questions.map((q) => q.id)).toEqual([
      "bundled_shopping:0:1",
      "bundled_shopping:0:2",
      "formal_reasoning_math:3:1",
      "formal_reasoning_math:3:2",
      "group_travel_planner:7:1",
      "group_travel_planner:7:2",
      "group_travel_planner:7:3",
    ]);
    expect(readFileSync(join(out, "steps", "memoryarena-bundled_shopping-0", "1.jsonl"), "utf8")).toBe("");
    expect(readFileSync(join(out, "steps", "memoryarena-bundled_shopping-0", "2.jsonl"), "utf8")).toContain("B00CAKEMIX");
  });

  const malformed = [
    { name: "invalid JSON", lines: ['{"id": 1, "questions": ["q"], "answers": ["a"]}', '{"id": 2, "questions": ["q"]'], message: /bad\.jsonl:2: invalid JSON/ },
    { name: "questions not a list", lines: ["", '{"id": 2, "questions": "q", "answers": ["a"]}'], message: /bad\.jsonl:2: not a MemoryArena task: questions: / },
    { name: "no id", lines: ['{"questions": ["q"], "answers": ["a"]}'], message: /bad\.jsonl:1: not a MemoryArena task: id: / },
    { name: "an answer short", lines: ['{"id": 1, "questions": ["q1", "q2"], "answers": ["a1"]}'], message: /bad\.jsonl:1: task 1 has 2 questions but 1 answers/ },
    { name: "not an object", lines: ["[1, 2]"], message: /bad\.jsonl:1: expected a JSON object/ },
    { name: "a duplicate id", lines: ['{"id": 4, "questions": ["q"], "answers": ["a"]}', '{"id": 4, "questions": ["q"], "answers": ["a"]}'], message: /bad\.jsonl:2: task 4 of bad is also at .*bad\.jsonl:1/ },
  ];
  for (const c of malformed) {
    test(`a malformed line is an error with its file and line number: ${c.name}`, async () => {
      const file = join(dir, c.name.replace(/\W/g, "-"), "bad.jsonl");
      await Bun.write(file, `${c.lines.join("\n")}\n`);
      await expectGllamError(() => loadMemoryArena(file), "E_BAD_INPUT", c.message);
    });
  }

  test("a missing path, and a folder without .jsonl files", async () => {
    await expectGllamError(() => loadMemoryArena(join(dir, "nothing-here")), "E_NOT_FOUND", /no such file or folder/);
    mkdirSync(join(dir, "empty"));
    await expectGllamError(() => loadMemoryArena(join(dir, "empty")), "E_BAD_INPUT", /no \.jsonl files/);
  });
});
