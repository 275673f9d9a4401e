import { expect, test } from "bun:test";
import { runGllam } from "../helpers.ts";

test("gllam bench taxonomy moves the branch while a reader process queries, and reports the figures", () => {
  const run = runGllam(["bench", "taxonomy", "--nodes", "2000", "--pause", "2"]);
  expect(run.code).toBe(0);
  const result = JSON.parse(run.stdout);
  expect(Object.keys(result)).toEqual(expect.arrayContaining(["nodes", "consolidate_s", "reader_queries", "reader_p99_ms", "busy_errors"]));
  // 2000 entities, 100 kind categories and the branch root.
  expect(result).toMatchObject({ nodes: 2000, moved: 2101, batches: 5, verified: true });
  expect(result.reader_queries).toBeGreaterThan(0);
  expect(runGllam(["bench", "taxonomy", "--nodes", "5"]).stderr).toContain("--nodes must be an integer of at least 100");
});
