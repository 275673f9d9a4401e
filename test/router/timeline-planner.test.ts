import { beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Gllam } from "../../src/gllam/gllam.ts";
import { expectGllamError, localEmbedder, makeTempDir, runGllam } from "../helpers.ts";
import { restoreFastDownwardAfterEach, writeNativeBehindFastDownward } from "../planning/fast-downward-stand-in.ts";

const dir = makeTempDir();
const dbPath = join(dir, "memory.db");
const standIn = writeNativeBehindFastDownward(dir);
const question = "Did the Lisbon trip happen before the Wedding?";
const open = () => Gllam.open(dbPath, { embedder: localEmbedder });

beforeAll(async () => {
  const gllam = await open();
  const events = (scope: string) => ["Lisbon trip", "Wedding"].map((name) => gllam.ensureNodeNamed(name, { scope }).node.id);
  const [trip, wedding] = events("default");
  gllam.addEdge({ sourceId: trip!, targetId: wedding!, relationship: "happened_before" });
  // A timeline that contradicts itself: no planner can order it.
  const [loopTrip, loopWedding] = events("loop");
  gllam.addEdge({ sourceId: loopTrip!, targetId: loopWedding!, relationship: "happened_before", scope: "loop" });
  gllam.addEdge({ sourceId: loopWedding!, targetId: loopTrip!, relationship: "happened_before", scope: "loop" });
  gllam.close();
});

describe("the router's timeline through the planner the caller chooses", () => {
  restoreFastDownwardAfterEach();

  test("fast-downward: the timeline goes out as PDDL files, the plan comes back validated, the context says who ordered it", async () => {
    process.env.FAST_DOWNWARD = standIn;
    const memory = await open();
    const context = await memory.routeAndAssemble(question, { planner: { planner: "fast-downward" } });
    expect(context.markdown).toMatch(/## Timeline\n- Lisbon trip came first: .*Lisbon trip happened_before Wedding \(ordered by fast-downward \(lama-first\)\) \[links \d+\]/);
    // Fast Downward's "unsolvable" is read as the contradiction the graph then names.
    const loop = await memory.routeAndAssemble(question, { scope: "loop", planner: { planner: "fast-downward" } });
    expect(loop.markdown).toMatch(/- ⚠ the timeline contradicts itself: .*happened_before.* \(fast-downward \(lama-first\) found no ordering\) \[links \d+, \d+\]/);
    memory.close();
  });

  test("a configured Fast Downward that is missing is an error naming the path; auto falls back to the native planner", async () => {
    const missing = join(dir, "no-such", "fast-downward.py");
    process.env.FAST_DOWNWARD = missing;
    const memory = await open();
    await expectGllamError(memory.routeAndAssemble(question, { planner: { planner: "fast-downward" } }), "E_NOT_FOUND", new RegExp(`Fast Downward not found at ${missing}`));
    expect((await memory.routeAndAssemble(question, { planner: { planner: "auto" } })).markdown).toContain("(ordered by native (lazy-gbfs, eliminate))");
    memory.close();
  });
});

describe("gllam context --planner", () => {
  test("--planner fast-downward runs $FAST_DOWNWARD", () => {
    const out = runGllam(["context", question, "--db", dbPath, "--planner", "fast-downward"], { env: { FAST_DOWNWARD: standIn } });
    expect(out).toMatchObject({ code: 0, stderr: "" });
    expect(out.stdout).toContain("(ordered by fast-downward (lama-first))");
  });

  test("an unknown planner is refused naming the choices", () => {
    const out = runGllam(["context", question, "--db", dbPath, "--planner", "magic"]);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/planner: must be one of native, bfs, fast-downward, auto \[E_BAD_INPUT\]/);
  });
});
