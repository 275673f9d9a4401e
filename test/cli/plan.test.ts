import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parsePlanText } from "../../src/planning/plan-text.ts";
import { makeTempDir, runGllam } from "../helpers.ts";
import { writeFastDownwardStandIn } from "../planning/fast-downward-stand-in.ts";
import { DELIVERY_DOMAIN, DELIVERY_PROBLEM, TOKEN_DOMAIN, TOKEN_PROBLEM } from "../planning/fixtures.ts";

const dir = makeTempDir();
const write = (name: string, text: string) => {
  const path = join(dir, name);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
};
const domain = write("suite/delivery/domain.pddl", DELIVERY_DOMAIN);
const problem = write("suite/delivery/p1.pddl", DELIVERY_PROBLEM);
const tokenDomain = write("suite/token/domain.pddl", TOKEN_DOMAIN);
const tokenProblem = write("suite/token/both.pddl", TOKEN_PROBLEM);
const noFastDownward = { FAST_DOWNWARD: join(dir, "none", "fast-downward.py") };

/** Answers every task with the delivery plan, whatever it is asked: right for delivery, invalid for token. */
const fakeFastDownward = writeFastDownwardStandIn(
  dir,
  "fake-fd.sh",
  `printf '(drive v1 depot a)\\n(load p1 v1 a)\\n(drive v1 a b)\\n(load p2 v1 b)\\n(drive v1 b c)\\n(unload p1 v1 c)\\n(drive v1 c b)\\n(drive v1 b a)\\n(drive v1 a depot)\\n(unload p2 v1 depot)\\n' > "$plan"`,
);

describe("gllam plan", () => {
  test("prints the validated plan in IPC format and exits 0", () => {
    const out = runGllam(["plan", domain, problem]);
    expect(out.code).toBe(0);
    expect(out.stderr).toBe("");
    const lines = out.stdout.trimEnd().split("\n");
    expect(lines.at(-1)).toMatch(/^; cost = \d+$/);
    expect(lines.slice(0, -1).every((l) => /^\([a-z0-9-]+( [a-z0-9-]+)*\)$/.test(l))).toBe(true);
    expect(parsePlanText(out.stdout, "stdout").length).toBe(Number(lines.at(-1)!.split("= ")[1]));
  });

  test("--planner bfs and --out FILE", () => {
    const file = join(dir, "plan.txt");
    const out = runGllam(["plan", domain, problem, "--planner", "bfs", "--out", file, "--timeout", "10"]);
    expect(out).toMatchObject({ code: 0, stdout: "" });
    expect(readFileSync(file, "utf8")).toEndWith("; cost = 10\n");
  });

  test("--planner fast-downward runs $FAST_DOWNWARD and validates what it writes", () => {
    const env = { FAST_DOWNWARD: fakeFastDownward };
    expect(runGllam(["plan", domain, problem, "--planner", "fast-downward"], { env })).toMatchObject({ code: 0 });
    const invalid = runGllam(["plan", tokenDomain, tokenProblem, "--planner", "fast-downward"], { env });
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/returned an invalid plan: step 1: \(drive v1 depot a\): no such action \[E_PLANNER\]/);
  });

  test.each([
    ["an unsolvable task", [tokenDomain, tokenProblem], 1, /^gllam: no plan \(unsolvable, native \(lazy-gbfs, eliminate\)\): the search space was exhausted/],
    ["malformed PDDL", [tokenDomain, write("bad.pddl", "(define (problem x) (:domain token) (:goal (and (p) (zz))))")], 2, /bad\.pddl:1:53: undefined predicate zz \[E_BAD_INPUT\]/],
    ["a missing file", [tokenDomain, join(dir, "nope.pddl")], 2, /no PDDL file at .*nope\.pddl \[E_NOT_FOUND\]/],
    ["a missing problem argument", [tokenDomain], 2, /Missing required positional argument: PROBLEM/],
    ["a bad timeout", [domain, problem, "--timeout", "soon"], 2, /invalid plan flags: timeout: must be a number of seconds \[E_BAD_INPUT\]/],
    ["an unknown planner", [domain, problem, "--planner", "magic"], 2, /planner: must be one of native, bfs, fast-downward, auto/],
    ["a missing Fast Downward", [domain, problem, "--planner", "fast-downward"], 2, /Fast Downward not found at .*none\/fast-downward\.py/],
    ["--out into a missing folder", [domain, problem, "--out", join(dir, "absent", "plan.txt")], 2, /cannot write the plan to .*absent\/plan\.txt: folder .*absent does not exist \[E_CANNOT_OPEN\]/],
    ["--out onto a folder", [domain, problem, "--out", join(dir, "suite")], 2, /cannot write the plan to .*suite: .* \[E_CANNOT_OPEN\]/],
  ])("%s: exit code and one clear line", (_name, args, code, message) => {
    const out = runGllam(["plan", ...args], { env: noFastDownward });
    expect(out.code).toBe(code);
    expect(out.stdout).toBe("");
    expect(out.stderr.trim().split("\n")).toHaveLength(1);
    expect(out.stderr.trim()).toMatch(message);
  });

  test("a failed --out leaves no file behind", () => {
    const before = readdirSync(dir).sort();
    expect(runGllam(["plan", domain, problem, "--out", join(dir, "suite")]).code).toBe(2);
    expect(readdirSync(dir).sort()).toEqual(before);
    expect(existsSync(join(dir, "absent"))).toBe(false);
  });
});

describe("gllam bench planner", () => {
  test("runs every instance of a suite, validates, and reports per domain (Fast Downward skipped when absent)", () => {
    const json = join(dir, "bench.json");
    const markdown = join(dir, "bench.md");
    const out = runGllam(["bench", "planner", "--suite", join(dir, "suite"), "--planner", "all", "--timeout", "10", "--json", json, "--markdown", markdown], { env: noFastDownward });
    expect(out.code).toBe(0);
    const report = JSON.parse(readFileSync(json, "utf8"));
    expect(Object.keys(report.planners).sort()).toEqual(["bfs", "fast-downward astar(blind())", "fast-downward lama-first", "native"]);
    expect(report.planners["fast-downward lama-first"].skipped).toMatch(/Fast Downward not found/);
    for (const name of ["native", "bfs"]) {
      expect(report.planners[name]).toMatchObject({ instances: 2, solved: 1, invalid_plans: 0 });
      expect(report.planners[name].by_domain.delivery).toMatchObject({ instances: 1, solved: 1 });
      expect(report.planners[name].by_domain.delivery.median_plan_length).toBeGreaterThanOrEqual(10);
      expect(report.planners[name].by_domain.token).toEqual({ instances: 1, solved: 0, median_s: null, median_plan_length: null });
    }
    expect(report.planners.bfs.by_domain.delivery.median_plan_length).toBe(10);
    expect(readFileSync(markdown, "utf8")).toContain("| delivery | 1/1 ·");
  });

  test("a single planner prints its report; Fast Downward's invalid plans are counted, never solved", () => {
    const out = runGllam(["bench", "planner", "--suite", join(dir, "suite"), "--planner", "fast-downward", "--timeout", "10"], { env: { FAST_DOWNWARD: fakeFastDownward } });
    expect(out.code).toBe(0);
    const report = JSON.parse(out.stdout);
    expect(report.planners["fast-downward lama-first"]).toMatchObject({ instances: 2, solved: 1, invalid_plans: 1 });
    const native = JSON.parse(runGllam(["bench", "planner", "--suite", join(dir, "suite"), "--timeout", "10"]).stdout);
    expect(native).toMatchObject({ planner: "native", instances: 2, solved: 1 });
  });

  test("a missing suite is an error", () => {
    const out = runGllam(["bench", "planner", "--suite", join(dir, "nothing")]);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/no suite folder at .*nothing \[E_NOT_FOUND\]/);
  });
});
