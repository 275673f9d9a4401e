import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tinyLocomo } from "../fixtures/tiny-locomo.ts";
import { tinyArenaTasks, writeTinyArena } from "../fixtures/tiny-memoryarena.ts";
import { devDataPath } from "../fuzz/dev-data.ts";
import { makeTempDir, REPO_ROOT } from "../helpers.ts";
import { startStubServer, type StubServer } from "../llm/stub-server.ts";

const dir = makeTempDir();
const out = join(dir, "out");
let stub: StubServer;

beforeAll(async () => {
  stub = await startStubServer({
    rules: [
      // The judge (its messages say QUESTION:), with canned verdicts.
      { match: "QUESTION: What is the name of Ann's cat?", reply: { content: "PASS: same name" } },
      { match: "QUESTION: Which instrument is Bo learning?", reply: { content: "FAIL: the gold says cello" } },
      { match: "QUESTION: Where did Ann's sister move", reply: { content: "FAIL: misses the tiles" } },
      { match: "QUESTION: An adversarial question", reply: { content: "PASS: says it does not know" } },
      // MemoryArena's subtasks, judged: by config 1/2, 1/2, 2/3; by position 1/3, 3/3, 0/1.
      ...arenaVerdicts(),
      // gllam ask (its message says Question:).
      { match: "Question: Buy a frosting that suits", reply: { json: { known: true, answer: "B00FROSTING", citations: [] } } },
      { match: "Question: What is the name of Ann's cat?", reply: { json: { known: true, answer: "Pixel", citations: [] } } },
      { match: "Question: Which instrument is Bo learning?", reply: { json: { known: true, answer: "The piano", citations: [] } } },
      { matchAny: "Memory context:", reply: { json: { known: false, answer: "", citations: [] } } },
      // gllam extract.
      { matchAny: "logical fallacies", reply: { json: { findings: [] } } },
      { reply: { generate: "extraction" } },
    ],
  });
  await Bun.write(join(dir, "locomo.json"), JSON.stringify(tinyLocomo()));
});
afterAll(() => stub.stop());

function arenaVerdicts() {
  const verdicts = {
    bundled_shopping: ["FAIL: no product bought", "PASS: same product"],
    formal_reasoning_math: ["FAIL: no value", "PASS: same value"],
    group_travel_planner: ["PASS: same hotel", "PASS: same restaurant", "FAIL: no restaurant"],
  };
  return Object.entries(verdicts).flatMap(([config, replies]) =>
    tinyArenaTasks[config as keyof typeof verdicts].questions.map((question, i) => ({ match: `QUESTION: ${question}`, reply: { content: replies[i] } })),
  );
}

const readJsonl = (path: string) => readFileSync(path, "utf8").trim().split("\n").map((line) => JSON.parse(line));

async function run(script: string, env: Record<string, string> = { DATASET: "locomo", DATA: join(dir, "locomo.json"), OUT: out }) {
  const proc = Bun.spawn(["bash", join(REPO_ROOT, "bench/qa", script)], {
    env: { ...process.env, MODEL: "stub-model", STRONG_TEXT_SERVER: stub.url, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

const tools = ["bash", "jq", "curl"].filter((tool) => !Bun.which(tool));

test.skipIf(!Bun.which("shellcheck"))("the QA scripts have no shellcheck findings", () => {
  const scripts = ["lib.sh", "run_extract.sh", "run_audit.sh", "run_eval.sh", "run_grade.sh", "run_all.sh"].map((name) => join(REPO_ROOT, "bench/qa", name));
  const check = Bun.spawnSync(["shellcheck", "-x", "--severity=style", ...scripts], { cwd: REPO_ROOT, stdout: "pipe" });
  expect(check.stdout.toString()).toBe("");
  expect(check.exitCode).toBe(0);
});

// Without jq or curl (.ci/run installs them) the pipeline cannot run: the test says so and skips.
if (tools.length > 0) console.warn(`skipping the QA pipeline test: ${tools.join(", ")} not installed`);
test.skipIf(tools.length > 0)("the QA pipeline runs end to end against the stub LLM, and its figures are the canned verdicts", async () => {
  const all = await run("run_all.sh");
  expect(all.stderr).toBe("");
  expect(all.code).toBe(0);
  expect(all.stdout).toContain("extracted 1 scope(s)");
  expect(all.stdout).toMatch(/relationship\tmentioned\t\d+/);
  expect(all.stdout).toContain("answered 4 question(s)");
  expect(all.stdout).toContain("accuracy 2/4 = 0.5\n  adversarial: 1/1 = 1\n  multi-hop: 0/1 = 0\n  single-hop: 1/2 = 0.5\n");

  const results = readJsonl(join(out, "results_stub-model.jsonl"));
  expect(results.map((r) => [r.id, r.category, r.answer])).toEqual([
    ["tiny:0", "single-hop", "Pixel"],
    ["tiny:1", "single-hop", "The piano"],
    ["tiny:2", "multi-hop", "I don't know"],
    ["tiny:3", "adversarial", "I don't know"],
  ]);
  expect(results[0]).toMatchObject({ gold: "Pixel", context: expect.stringContaining("Ann: I adopted a grey cat named Pixel"), latency_ms: expect.any(Number) });
  expect(results[0].prompt_tokens).toBeGreaterThan(0);
  expect(results[0].context_tokens).toBeLessThanOrEqual(1500);
  const failures = readFileSync(join(out, "failures_stub-model.md"), "utf8");
  expect(failures).toContain("## tiny:1 (single-hop)\n- question: Which instrument is Bo learning?\n- gold: cello\n- answer: The piano\n- judge: the gold says cello");
  expect(failures).not.toContain("tiny:0");

  // Resumable: a second run asks nothing again.
  const before = stub.stats().requests;
  expect((await run("run_eval.sh")).code).toBe(0);
  expect((await run("run_grade.sh")).code).toBe(0);
  expect(stub.stats().requests).toBe(before);
});

const beam = devDataPath("beam", "100K");
test.skipIf(tools.length > 0 || !beam)("BEAM: one scope per chat, its probing questions by ability, graded with their rubric", async () => {
  const beamOut = join(dir, "beam");
  const all = await run("run_all.sh", { DATASET: "beam", DATA: beam!, OUT: beamOut, LIMIT: "3" });
  expect(all.stderr).toBe("");
  expect(all.code).toBe(0);
  expect(all.stdout).toContain("extracted 1 scope(s)");
  expect(all.stdout).toContain("answered 3 question(s)");
  // The stub's default verdict is no verdict: every answer fails, and says why.
  expect(all.stdout).toContain("accuracy 0/3 = 0\n  abstention: 0/2 = 0\n  contradiction_resolution: 0/1 = 0\n");
  const graded = readJsonl(join(beamOut, "graded_stub-model.jsonl"));
  expect(graded[2]).toMatchObject({ id: "beam-1:contradiction_resolution:0", scope: "beam-1", gold: expect.stringContaining("rubric: "), verdict: "FAIL" });
  const judged = stub.requests.filter((r) => r.lastUser.startsWith("QUESTION:")).at(-1)!;
  expect(judged.lastUser).toContain("rubric: LLM response should state: there is contradictory information");
});

test.skipIf(tools.length > 0)("MemoryArena: memory grows a subtask at a time, and the accuracy by config and by subtask position is the canned verdicts'", async () => {
  const arenaOut = join(dir, "memoryarena");
  const env = { DATASET: "memoryarena", DATA: await writeTinyArena(join(dir, "arena")), OUT: arenaOut };
  const all = await run("run_all.sh", env);
  expect(all.stderr).toBe("");
  expect(all.code).toBe(0);
  expect(all.stdout).toContain("extracted 3 scope(s)");
  expect(all.stdout).toContain("answered 7 question(s)");
  expect(all.stdout).toContain(
    "accuracy 4/7 = 0.571\n  bundled_shopping: 1/2 = 0.5\n  formal_reasoning_math: 1/2 = 0.5\n  group_travel_planner: 2/3 = 0.666\n" +
      "by subtask position\n  subtask 1: 1/3 = 0.333\n  subtask 2: 3/3 = 1\n  subtask 3: 0/1 = 0\n",
  );

  // What memory held when each subtask was asked: the background and the earlier subtasks' results, never its own.
  const results = Object.fromEntries(readJsonl(join(arenaOut, "results_stub-model.jsonl")).map((r) => [r.id, r]));
  expect(results["bundled_shopping:0:1"].context).not.toContain("B00CAKEMIX");
  expect(results["bundled_shopping:0:2"]).toMatchObject({ answer: "B00FROSTING", gold: expect.stringContaining('"target_asin":"B00FROSTING"'), position: 2 });
  expect(results["bundled_shopping:0:2"].context).toContain("B00CAKEMIX");
  expect(results["bundled_shopping:0:2"].context).not.toContain("B00FROSTING");
  expect(results["formal_reasoning_math:3:1"].context).toContain("doubles its input");
  expect(results["formal_reasoning_math:3:1"].context).not.toContain("squares");
  expect(results["formal_reasoning_math:3:2"].context).toContain("f(2) = 5");
  expect(results["formal_reasoning_math:3:2"].context).toContain("squares the value of f");
  expect(results["group_travel_planner:7:1"].context).toContain("sleeps at the Rock Inn");
  expect(results["group_travel_planner:7:2"].context).not.toContain("Lucky Noodle House");
  expect(results["group_travel_planner:7:3"].context).toContain("Lucky Noodle House");
  expect(readFileSync(join(arenaOut, "failures_stub-model.md"), "utf8")).toContain("## group_travel_planner:7:3 (group_travel_planner)\n");

  // Each step's turns stored once; the last subtask's result is never needed.
  const sessions = () => {
    const db = new Database(join(arenaOut, "memory.db"), { readonly: true });
    const rows = db.query("SELECT scope, session_id AS session, count(*) AS n FROM episodes GROUP BY 1, 2 ORDER BY 1, 2").all();
    db.close();
    return rows;
  };
  const stored = sessions();
  expect(stored).toEqual([
    { scope: "memoryarena-bundled_shopping-0", session: "subtask-1", n: 2 },
    { scope: "memoryarena-formal_reasoning_math-3", session: "subtask-1", n: 2 },
    { scope: "memoryarena-formal_reasoning_math-3", session: "subtask-1-background", n: 1 },
    { scope: "memoryarena-formal_reasoning_math-3", session: "subtask-2-background", n: 1 },
    { scope: "memoryarena-group_travel_planner-7", session: "background-1", n: 1 },
    { scope: "memoryarena-group_travel_planner-7", session: "subtask-1", n: 2 },
    { scope: "memoryarena-group_travel_planner-7", session: "subtask-2", n: 2 },
  ]);

  // Resumable: a second run asks nothing again and stores nothing twice.
  const before = stub.stats().requests;
  expect((await run("run_all.sh", env)).code).toBe(0);
  expect(stub.stats().requests).toBe(before);
  expect(sessions()).toEqual(stored);
});
