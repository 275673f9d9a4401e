import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runFastDownward } from "../../src/planning/fast-downward.ts";
import { parseDomain, parseProblem } from "../../src/planning/parser.ts";
import { planFiles } from "../../src/planning/solve.ts";
import { expectGllamError, makeTempDir } from "../helpers.ts";
import { restoreFastDownwardAfterEach, writeFastDownwardStandIn } from "./fast-downward-stand-in.ts";
import { DELIVERY_DOMAIN, DELIVERY_PROBLEM } from "./fixtures.ts";

const dir = makeTempDir();
const domainFile = join(dir, "domain.pddl");
const problemFile = join(dir, "problem.pddl");
writeFileSync(domainFile, DELIVERY_DOMAIN);
writeFileSync(problemFile, DELIVERY_PROBLEM);
const domain = parseDomain(DELIVERY_DOMAIN);
const problem = parseProblem(DELIVERY_PROBLEM, domain);

const GOOD_PLAN = [
  "(drive v1 depot a)", "(load p1 v1 a)", "(drive v1 a b)", "(load p2 v1 b)", "(drive v1 b c)",
  "(unload p1 v1 c)", "(drive v1 c b)", "(drive v1 b a)", "(drive v1 a depot)", "(unload p2 v1 depot)",
].join("\n");

const fakePlanner = (name: string, body: string) => writeFastDownwardStandIn(dir, name, body);

/** Processes still in a process group (zombies included): none may outlive the runner. */
function groupMembers(pgid: number): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return Number(fields[2]) === pgid ? [Number(pid)] : [];
      } catch {
        return [];
      }
    });
}

async function waitForEmptyGroup(pgid: number): Promise<number[]> {
  for (let i = 0; i < 50 && groupMembers(pgid).length > 0; i++) await Bun.sleep(100);
  return groupMembers(pgid);
}

describe("Fast Downward runner", () => {
  restoreFastDownwardAfterEach();

  test("runs the driver with an alias, reads sas_plan back and validates it", async () => {
    const path = fakePlanner("good.sh", `printf '%s\\n; cost = 10 (unit cost)\\n' "${GOOD_PLAN}" > "$plan"`);
    const result = await runFastDownward(domainFile, problemFile, domain, problem, { path });
    expect(result).toMatchObject({ status: "solved", planner: "fast-downward (lama-first)", cost: 10 });
    expect(result.plan[0]).toEqual({ action: "drive", args: ["v1", "depot", "a"] });
    expect(readFileSync(`${path}.args`, "utf8")).toBe("--alias lama-first\n");
  });

  test("a search component is passed after the input files; the last numbered plan of an anytime run wins", async () => {
    const path = fakePlanner("anytime.sh", `printf '(drive v1 depot a)\\n' > "$plan.1"; printf '%s\\n' "${GOOD_PLAN}" > "$plan.2"`);
    const result = await runFastDownward(domainFile, problemFile, domain, problem, { path, search: "astar(blind())" });
    expect(result).toMatchObject({ status: "solved", planner: "fast-downward (astar(blind()))" });
    expect(result.plan).toHaveLength(10);
    expect(readFileSync(`${path}.args`, "utf8")).toBe("--search astar(blind())\n");
  });

  test("an invalid plan is reported as invalid, never as solved", async () => {
    const path = fakePlanner("bad.sh", `printf '(drive v1 a b)\\n' > "$plan"`);
    const result = await runFastDownward(domainFile, problemFile, domain, problem, { path });
    expect(result.status).toBe("invalid");
    expect(result.reason).toMatch(/step 1: \(drive v1 a b\): precondition \(at v1 a\) does not hold/);
  });

  test.each([
    [11, "unsolvable"],
    [12, "unsolved"],
    [23, "unsolved"],
  ])("exit code %i without a plan means %s", async (code, status) => {
    const path = fakePlanner(`exit-${code}.sh`, `exit ${code}`);
    expect((await runFastDownward(domainFile, problemFile, domain, problem, { path })).status).toBe(status as "unsolved");
  });

  test("a crash is an E_PLANNER error with the end of its output", async () => {
    const path = fakePlanner("crash.sh", `echo "translate: something broke" >&2; exit 1`);
    await expectGllamError(runFastDownward(domainFile, problemFile, domain, problem, { path }), "E_PLANNER", /exited with code 1 and wrote no plan: translate: something broke/);
  });

  test("a planner that hangs is killed at the limit with everything it started; no process remains", async () => {
    const pidFile = join(dir, "hang.pid");
    const path = fakePlanner("hang.sh", `echo $$ > "${pidFile}"; sleep 600 & sleep 600; wait`);
    const fdFolders = () => readdirSync(tmpdir()).filter((f) => f.startsWith("gllam-fd-")).length;
    const foldersBefore = fdFolders();
    const started = performance.now();
    const result = await runFastDownward(domainFile, problemFile, domain, problem, { path, timeoutMs: 400 });
    expect(result.status).toBe("unsolved");
    expect(result.reason).toMatch(/^time limit/);
    expect(performance.now() - started).toBeLessThan(3000);
    const pgid = Number(readFileSync(pidFile, "utf8"));
    expect(await waitForEmptyGroup(pgid)).toEqual([]);
    expect(fdFolders()).toBe(foldersBefore); // its temp folder is gone too
  });

  test("a missing planner is an error naming the path; auto falls back to the native planner", async () => {
    const missing = join(dir, "no-such", "fast-downward.py");
    process.env.FAST_DOWNWARD = missing;
    await expectGllamError(planFiles(domainFile, problemFile, { planner: "fast-downward" }), "E_NOT_FOUND", new RegExp(`Fast Downward not found at ${missing}`));
    const auto = await planFiles(domainFile, problemFile, { planner: "auto" });
    expect(auto.status).toBe("solved");
    expect(auto.planner).toStartWith("native");
  });

  test.skipIf(!process.env.FAST_DOWNWARD)("the real Fast Downward ($FAST_DOWNWARD) solves the delivery task", async () => {
    const result = await runFastDownward(domainFile, problemFile, domain, problem, { timeoutMs: 60_000 });
    expect(result.status).toBe("solved");
  });
});
