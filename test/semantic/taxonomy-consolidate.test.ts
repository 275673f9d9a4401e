import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Gllam } from "../../src/gllam/gllam.ts";
import { listRunningJobs, readJob } from "../../src/engine/jobs.ts";
import { CONSOLIDATE_JOB } from "../../src/semantic/taxonomy-consolidate.ts";
import { isUnderTaxonomyPath, rewriteTaxonomyPath } from "../../src/semantic/taxonomy-paths.ts";
import { expectGllamError, REPO_ROOT } from "../helpers.ts";
import { count, tinyEmbedder, useGraphs } from "./fixtures.ts";

const graph = useGraphs();
const FROM = "/Legacy/DBs";
const TO = "/Infrastructure/Databases";

/** A branch of `size` nodes under FROM (in sub-categories), 50 already under TO, 40 elsewhere; both roots are categories. */
async function branchGraph(size: number): Promise<Gllam> {
  const gllam = await graph([]);
  gllam.store.transaction(() => {
    gllam.upsertNode({ id: "cat-from", name: "DBs", type: "category", isCategory: true, taxonomyPath: FROM });
    gllam.upsertNode({ id: "cat-to", name: "Databases", type: "category", isCategory: true, taxonomyPath: TO });
    for (let i = 0; i < size; i++) gllam.upsertNode({ id: `b${i}`, name: `Branch ${i}`, taxonomyPath: i % 3 === 0 ? FROM : `${i % 2 ? "/legacy/dbs" : FROM}/Kind${i % 5}` });
    for (let i = 0; i < 50; i++) gllam.upsertNode({ id: `t${i}`, name: `There ${i}`, taxonomyPath: `${TO}/Kind${i % 5}` });
    for (let i = 0; i < 40; i++) gllam.upsertNode({ id: `o${i}`, name: `Other ${i}`, taxonomyPath: i % 2 ? "/Legacy/DBs2" : "/Other" });
  });
  return gllam;
}

const allPaths = (gllam: Gllam) =>
  new Map(gllam.dbRO().query<{ id: string; path: string }, []>("SELECT id, taxonomy_path AS path FROM semantic_nodes").all().map((r) => [r.id, r.path]));

/** Every node moved exactly as the rewrite says; none lost, none elsewhere touched. */
function expectMoved(before: Map<string, string>, after: Map<string, string>): void {
  expect(after.size).toBe(before.size);
  for (const [id, path] of before) expect(after.get(id)).toBe(rewriteTaxonomyPath(path, FROM, TO));
}

describe("consolidateTaxonomyBranch", () => {
  test("moves the branch (case-insensitively, sub-paths kept) in batches, records the job, keeps both categories and links them", async () => {
    const gllam = await branchGraph(1200);
    gllam.upsertProceduralKnowledge({ taskType: "vacuum", recipe: "VACUUM ANALYZE nightly", taxonomyPath: `${FROM}/Kind1` });
    gllam.upsertProceduralKnowledge({ taskType: "elsewhere", recipe: "not moved", taxonomyPath: "/Legacy/DBs2" });
    const before = allPaths(gllam);
    const progress: number[] = [];
    const report = await gllam.consolidateTaxonomyBranch(`${FROM}/`, TO, { batchSize: 500, pauseMs: 0, onBatch: (p) => progress.push(p.moved) });
    expect(report).toMatchObject({ from: FROM, to: TO, moved: 1201, totalMoved: 1201, movedProcedures: 1, batches: 3, resumed: false, fromCategoryId: "cat-from", toCategoryId: "cat-to" });
    expect(progress).toEqual([500, 1000, 1201]);
    expectMoved(before, allPaths(gllam));
    expect(gllam.getNodesByTaxonomyPrefix(FROM)).toEqual([]);
    expect(gllam.getProceduresByTaxonomyPrefix(TO).map((p) => [p.taskType, p.taxonomyPath])).toEqual([["vacuum", `${TO}/Kind1`]]);
    expect(gllam.getProceduresByTaxonomyPrefix("/Legacy").map((p) => p.taskType)).toEqual(["elsewhere"]);
    expect(gllam.getNodesByTaxonomyPrefix("/Legacy/DBs2")).toHaveLength(20);
    expect(gllam.getNode("cat-from")).toMatchObject({ taxonomyPath: TO, isCategory: true, metadata: { mergedInto: "cat-to", mergedFrom: FROM } });
    expect(gllam.activeLinks("cat-from").map((l) => [l.relationship, l.targetId])).toEqual([["subclass_of", "cat-to"]]);
    expect(readJob(gllam.dbRO(), report.jobId)).toMatchObject({ kind: CONSOLIDATE_JOB, status: "done", params: { from: FROM, to: TO }, state: { moved: 1201, batches: 3 } });
    // Nothing left to move: a second call finds nothing and changes nothing.
    expect(await gllam.consolidateTaxonomyBranch(FROM, TO, { pauseMs: 0 })).toMatchObject({ moved: 0, resumed: false });
    expect(gllam.activeLinks("cat-from")).toHaveLength(1);
    gllam.close();
  });

  test.each([
    ["/", "/A", /root/],
    ["/A", "/A/B", /one branch contains the other/],
    ["/A/B", "/a", /one branch contains the other/],
    ["/A", "/a", /one branch contains the other/],
    ["A", "/B", /must start with \//],
  ])("refuses %p -> %p", async (from, to, message) => {
    const gllam = await graph(["X"]);
    await expectGllamError(gllam.consolidateTaxonomyBranch(from, to), "E_BAD_INPUT", message);
    expect(count(gllam, "maintenance_jobs")).toBe(0);
    gllam.close();
  });

  test("a consolidation killed midway leaves every node under exactly one of the two paths, and resumes to the end", async () => {
    const gllam = await branchGraph(3000);
    const before = allPaths(gllam);
    const branch = [...before].filter(([, path]) => isUnderTaxonomyPath(path, FROM)).map(([id]) => id);
    gllam.close();

    // A real process, killed with SIGKILL (no cleanup, possibly inside a transaction) after 5 committed batches.
    const proc = Bun.spawn(["bun", join(REPO_ROOT, "test/fixtures/consolidate-branch.ts"), gllam.path, FROM, TO, "100", "40"], { env: { ...process.env }, stdout: "pipe", stderr: "pipe" });
    const reader = proc.stdout.getReader();
    let text = "";
    while (!/batch 5 /.test(text)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the consolidation process ended early: ${text} ${await new Response(proc.stderr).text()}`);
      text += new TextDecoder().decode(value);
    }
    proc.kill("SIGKILL");
    await proc.exited;
    expect(text).not.toContain("done");

    const reopened = await Gllam.open(gllam.path, { embedder: tinyEmbedder });
    const midway = allPaths(reopened);
    const [jobBefore] = listRunningJobs(reopened.dbRO(), CONSOLIDATE_JOB);
    const movedSoFar = branch.filter((id) => isUnderTaxonomyPath(midway.get(id)!, TO)).length;
    expect(jobBefore?.state.moved).toBe(movedSoFar);
    expect(movedSoFar).toBeGreaterThanOrEqual(500);
    expect(movedSoFar).toBeLessThan(branch.length);
    for (const [id, path] of before) {
      const now = midway.get(id)!;
      // Each node is at its old path or at its new one: never both, never neither.
      expect(now === path || now === rewriteTaxonomyPath(path, FROM, TO)).toBe(true);
      if (branch.includes(id)) expect(isUnderTaxonomyPath(now, FROM) !== isUnderTaxonomyPath(now, TO)).toBe(true);
    }

    const [resumed] = await reopened.resumeTaxonomyConsolidations({ pauseMs: 0 });
    expect(resumed).toMatchObject({ jobId: jobBefore!.id, resumed: true, moved: branch.length - movedSoFar, totalMoved: branch.length });
    expectMoved(before, allPaths(reopened));
    expect(readJob(reopened.dbRO(), jobBefore!.id)?.status).toBe("done");
    expect(listRunningJobs(reopened.dbRO(), CONSOLIDATE_JOB)).toEqual([]);
    expect(reopened.activeLinks("cat-from").map((l) => l.targetId)).toEqual(["cat-to"]);
    reopened.close();
  });
});
