import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CompiledTask } from "../../src/planning/compiled-task.ts";
import { FFHeuristic } from "../../src/planning/ff-heuristic.ts";
import { groundTask } from "../../src/planning/grounding.ts";
import { makeLimits } from "../../src/planning/limits.ts";
import { parseDomain, parseProblem } from "../../src/planning/parser.ts";
import { solveNative, type NativeSearch } from "../../src/planning/planner.ts";
import { validatePlan } from "../../src/planning/validate.ts";
import { counterTask, DELIVERY_DOMAIN, DELIVERY_PROBLEM, ROADS_DOMAIN, ROADS_PROBLEM, TOKEN_DOMAIN, TOKEN_PROBLEM } from "./fixtures.ts";

const load = (domainText: string, problemText: string) => {
  const domain = parseDomain(domainText);
  return { domain, problem: parseProblem(problemText, domain) };
};

describe("grounding", () => {
  test("instantiates only reachable, well-typed actions and compiles static facts away", () => {
    const { domain, problem } = load(DELIVERY_DOMAIN, DELIVERY_PROBLEM);
    const task = groundTask(domain, problem, makeLimits());
    const names = task.actions.map((a) => a.name);
    expect(names).toContain("(drive v1 depot a)");
    // No road from depot to c, parcels never drive, and (= ?from ?to) is excluded.
    expect(names).not.toContain("(drive v1 depot c)");
    expect(names.some((n) => n.startsWith("(drive p1"))).toBe(false);
    // road is static: it is no fact of the search.
    expect(task.facts.some((f) => f.startsWith("(road"))).toBe(false);
    expect(task.facts).toContain("(at p1 c)");
  });

  test("a goal no action can reach is reported before any search", () => {
    const { domain, problem } = load(DELIVERY_DOMAIN, DELIVERY_PROBLEM.replace("(at p1 c)", "(road c depot)"));
    const result = solveNative(domain, problem);
    expect(result.status).toBe("unsolvable");
    expect(result.reason).toContain("(road c depot)");
  });
});

describe("FF heuristic", () => {
  test.each([
    ["integer costs (bucket queue)", ROADS_PROBLEM, 5, ["(go s m)", "(go m t)"]],
    ["fractional costs (binary heap)", ROADS_PROBLEM.replace("(= (length s m) 2)", "(= (length s m) 2.5)"), 5.5, ["(go s m)", "(go m t)"]],
    ["unit costs", ROADS_PROBLEM, 1, ["(go s t)"]],
  ])("with %s: the relaxed plan's cost, and its first steps as helpful actions", (name, problemText, h, helpful) => {
    const { domain, problem } = load(ROADS_DOMAIN, problemText);
    const t = new CompiledTask(groundTask(domain, problem, makeLimits()));
    const ff = new FFHeuristic(t, name === "unit costs");
    expect(ff.evaluate(t.initialState())).toBe(h);
    const preferred = Array.from(ff.preferred.slice(0, ff.preferredCount), (a) => t.task.actions[a]!.name);
    expect(preferred).toEqual([helpful[0]!]);
  });

  test("is infinite in a dead end: once the token is spent, q is out of reach even relaxed", () => {
    const { domain, problem } = load(TOKEN_DOMAIN, TOKEN_PROBLEM);
    const t = new CompiledTask(groundTask(domain, problem, makeLimits()));
    const ff = new FFHeuristic(t, true);
    expect(ff.evaluate(t.initialState())).toBe(2);
    const makeP = t.task.actions.findIndex((a) => a.name === "(make-p)");
    expect(ff.evaluate(t.apply(t.initialState(), makeP, new Uint32Array(t.words)))).toBe(Infinity);
  });
});

describe("native planner", () => {
  const searches: NativeSearch[] = ["lazy-gbfs", "eager-gbfs", "bfs"];
  test.each(searches)("%s solves the delivery task with a plan the validator accepts", (search) => {
    const { domain, problem } = load(DELIVERY_DOMAIN, DELIVERY_PROBLEM);
    const result = solveNative(domain, problem, { search });
    expect(result.status).toBe("solved");
    expect(validatePlan(domain, problem, result.plan)).toEqual({ valid: true, cost: result.plan.length });
    // depot->a, load p1, a->b, load p2, b->c, unload p1, c->b, b->a, a->depot, unload p2: 10 steps at best.
    if (search === "bfs") expect(result.plan).toHaveLength(10);
    expect(result.plan.length).toBeGreaterThanOrEqual(10);
  });

  test.each(searches)("%s proves the token task unsolvable (the relaxation alone cannot)", (search) => {
    const { domain, problem } = load(TOKEN_DOMAIN, TOKEN_PROBLEM);
    const result = solveNative(domain, problem, { search });
    expect(result).toMatchObject({ status: "unsolvable", plan: [] });
    expect(result.reason).toContain("exhausted");
  });

  test("the initial state meeting the goal gives the empty plan", () => {
    const { domain, problem } = load(TOKEN_DOMAIN, TOKEN_PROBLEM.replace("(and (p) (q))", "(token)"));
    expect(solveNative(domain, problem)).toMatchObject({ status: "solved", plan: [], cost: 0 });
  });

  test.each([
    ["node limit", { search: "bfs" as const, maxNodes: 500 }],
    ["time limit", { search: "bfs" as const, timeoutMs: 30 }],
    ["memory limit", { search: "bfs" as const, memoryLimitMB: 1 }],
    ["grounding limit", { maxGroundActions: 5 }],
  ])("the %s returns unsolved cleanly", (reason, options) => {
    const { domain, problem } = load(counterTask(22).domain, counterTask(22).problem);
    const result = solveNative(domain, problem, options);
    expect(result.status).toBe("unsolved");
    expect(result.reason.startsWith(reason)).toBe(true);
  });

  test("action costs: the plan's cost is the sum, and anytime improvement finds the cheaper detour", () => {
    const { domain, problem } = load(ROADS_DOMAIN, ROADS_PROBLEM);
    const first = solveNative(domain, problem, { improve: "none" });
    expect(first.status).toBe("solved");
    // Greedy search with unit costs takes the direct road (1 step, cost 10).
    expect(first).toMatchObject({ plan: [{ action: "go", args: ["s", "t"] }], cost: 10 });
    const improved = solveNative(domain, problem, { improve: "anytime", timeoutMs: 5000 });
    expect(improved).toMatchObject({ status: "solved", cost: 5 });
    expect(improved.plan.map((s) => s.args.join("-"))).toEqual(["s-m", "m-t"]);
  });

  test("action elimination drops steps that do not serve the goal", () => {
    const { domain, problem } = load(counterTask(6).domain, counterTask(6).problem);
    const plain = solveNative(domain, problem, { improve: "none" });
    const eliminated = solveNative(domain, problem);
    expect(eliminated.status).toBe("solved");
    expect(eliminated.plan.length).toBeLessThanOrEqual(plain.plan.length);
    expect(validatePlan(domain, problem, eliminated.plan).valid).toBe(true);
  });

  const suite = join(import.meta.dir, "../../../shared/data/pddl");
  test.skipIf(!existsSync(suite))("the smallest instance of each dev-suite domain is solved with a valid plan", () => {
    for (const name of readdirSync(suite)) {
      const domain = parseDomain(readFileSync(join(suite, name, "domain.pddl"), "utf8"));
      const first = readdirSync(join(suite, name)).filter((f) => f !== "domain.pddl").sort()[0]!;
      const problem = parseProblem(readFileSync(join(suite, name, first), "utf8"), domain);
      const result = solveNative(domain, problem, { timeoutMs: 10_000 });
      expect(`${name}: ${result.status}`).toBe(`${name}: solved`);
      expect(validatePlan(domain, problem, result.plan).valid).toBe(true);
    }
  });
});

describe("plan validator", () => {
  const { domain, problem } = load(DELIVERY_DOMAIN, DELIVERY_PROBLEM);
  test.each([
    ["an unknown action", [{ action: "fly", args: [] }], 1, /no such action/],
    ["a wrong argument count", [{ action: "drive", args: ["v1", "depot"] }], 1, /takes 3 argument/],
    ["an unknown object", [{ action: "drive", args: ["v1", "depot", "mars"] }], 1, /unknown object mars/],
    ["a badly typed argument", [{ action: "drive", args: ["p1", "depot", "a"] }], 1, /p1 is not of type van/],
    ["a precondition that does not hold", [{ action: "drive", args: ["v1", "a", "b"] }], 1, /precondition \(at v1 a\) does not hold/],
    ["an unmet goal", [{ action: "drive", args: ["v1", "depot", "a"] }], 0, /goal \(at p1 c\) does not hold/],
  ])("rejects %s", (_name, plan, step, reason) => {
    const check = validatePlan(domain, problem, plan);
    expect(check.valid).toBe(false);
    if (!check.valid) {
      expect(check.step).toBe(step);
      expect(check.reason).toMatch(reason);
    }
  });
});
