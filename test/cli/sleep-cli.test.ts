import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { copyFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir, runGllam } from "../helpers.ts";

const dir = makeTempDir();
// Seeded once (the bundled model embeds the sample nodes); each test works on copies.
const base = join(dir, "base.db");
const seeded = (name: string) => {
  if (!existsSync(base)) expect(runGllam(["seed", "--db", base]).code).toBe(0);
  copyFileSync(base, join(dir, name));
  return join(dir, name);
};

test("gllam sleep: a readable report, the same traces for the same --seed, JSON on request; gllam taxonomy lists and moves branches", () => {
  const db = seeded("sleep.db");
  const copies = ["copy-1.db", "copy-2.db"].map(seeded);

  const text = runGllam(["sleep", "--traces", "6", "--seed", "3", "--db", db]);
  expect(text.stderr).toBe("");
  expect(text.code).toBe(0);
  expect(text.stdout).toContain("sleep cycle (scope default, seed 3)");
  expect(text.stdout).toMatch(/categorized +10 node\(s\), 9 new categories, 0 still uncategorized/);
  expect(text.stdout).toMatch(/trace tests +6 question\(s\)/);
  expect(text.stdout).toMatch(/memory clarity +\d\.\d\d/);

  const [a, b] = copies.map((copy) => JSON.parse(runGllam(["sleep", "--traces", "6", "--seed", "9", "--json", "--db", copy]).stdout));
  expect(a.seed).toBe(9);
  expect(a.traces).toHaveLength(6);
  expect(b.traces).toEqual(a.traces);
  expect(runGllam(["sleep", "--traces", "-1", "--db", db])).toMatchObject({ code: 1, stderr: expect.stringContaining("--traces") });

  const listed = JSON.parse(runGllam(["taxonomy", "list", "/Service", "--json", "--db", db]).stdout);
  expect(listed.map((n: { id: string }) => n.id).toSorted()).toEqual(["caddy", "category:Service", "gitea"]);
  const moved = runGllam(["taxonomy", "consolidate", "/Service", "/Web/Services", "--db", db]);
  expect(moved.stdout).toContain("moved /Service -> /Web/Services: 3 node(s) in 1 batch(es)");
  expect(runGllam(["taxonomy", "list", "/web", "--db", db]).stdout).toContain("/Web/Services  Caddy (service)  caddy");
  expect(runGllam(["taxonomy", "cycles", "--db", db]).stdout).toBe("no taxonomy cycles\n");
});

test("a command on a file whose vectors come from another model warns once on stderr; gllam reembed fixes it", () => {
  const db = seeded("drift.db");
  const raw = new Database(db);
  raw.run("UPDATE system_metadata SET value = 'old-model@1' WHERE key = 'embedding_model_version'");
  raw.close();

  const stats = runGllam(["stats", "--db", db]);
  expect(stats.code).toBe(0);
  expect(stats.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^gllam: warning: stored vectors come from old-model@1, the active embedder is .+; vector search is refused until `gllam reembed` re-embeds them$/)]);

  const reembed = runGllam(["reembed", "--db", db]);
  expect(reembed.stderr).toBe("");
  expect(reembed.stdout).toContain("vector space drift: stored vectors come from old-model@1");
  expect(reembed.stdout).toMatch(/re-embedded everything \(old-model@1 -> .+\): 10 nodes, 0 episodes/);
  expect(runGllam(["stats", "--db", db]).stderr).toBe("");
});
