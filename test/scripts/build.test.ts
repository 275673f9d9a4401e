import { expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir, REPO_ROOT } from "../helpers.ts";

/**
 * `bun run build` makes one executable that works from a folder with no node_modules anywhere
 * above it, with a fresh HOME (so the sqlite-vec extension is copied out of the binary anew).
 */
test("the compiled gllam seeds, recalls and reports stats from a folder outside the repo", () => {
  const work = makeTempDir("gllam-binary-");
  const built = join(work, "build", "gllam");
  // The test static table (GLLAM_STATIC_TABLE, set by test/setup.ts) goes into this binary: a fresh
  // machine would otherwise distil the full table first. Bun.spawn does not pass on process.env changes.
  const build = Bun.spawnSync(["bun", "scripts/build.ts", built], { cwd: REPO_ROOT, env: { ...process.env }, stdout: "pipe", stderr: "pipe" });
  expect(build.stderr.toString()).toBe("");
  expect(build.exitCode).toBe(0);

  const runDir = join(work, "elsewhere");
  const home = join(work, "home");
  mkdirSync(runDir);
  mkdirSync(home);
  copyFileSync(built, join(runDir, "gllam"));
  const env = { PATH: "/usr/bin:/bin", HOME: home };
  const run = (...args: string[]) => {
    const proc = Bun.spawnSync([join(runDir, "gllam"), ...args], { cwd: runDir, env, stdout: "pipe", stderr: "pipe" });
    return { code: proc.exitCode, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
  };

  expect(existsSync(join(work, "node_modules"))).toBe(false);
  expect(run("--version").code).toBe(0);
  const seeded = run("seed");
  expect(seeded).toMatchObject({ code: 0, stderr: "" });
  expect(existsSync(join(runDir, "gllam.db"))).toBe(true);

  const recalled = run("recall", "web server");
  expect(recalled.code).toBe(0);
  expect(recalled.stdout.match(/^## (.+)$/m)?.[1]).toBe("Caddy (service)");

  // Episodes embedded by the worker pool: the worker is an entry point inside the executable.
  writeFileSync(join(runDir, "chat.jsonl"), '{"session_id": "s", "speaker": "Ann", "content": "The ferry leaves at noon."}\n');
  const ingested = run("ingest", "chat.jsonl", "--wait");
  expect(ingested).toMatchObject({ code: 0, stderr: "" });
  expect(ingested.stdout).toContain("embedded 1 episodes");
  expect(run("recall", "ferry").stdout).toContain("**Ann:** The ferry leaves at noon. _(bm25 #1, vector #1, static #1");

  const stats = JSON.parse(run("stats", "--json").stdout);
  // The static tier's vectors were written at ingest, from the table inside the executable.
  expect(stats).toMatchObject({ embeddingDims: 512, tables: { semantic_nodes: 10, semantic_embeddings: 10, episodes: 1, episode_vectors: 1, episode_static_vectors: 1 } });
  expect(stats.staticModel).toMatch(/^static-/);
  expect(stats.sqliteVecVersion).toMatch(/^v0\./);

  const cache = join(home, ".cache", "gllam");
  expect(readdirSync(cache).some((d) => d.startsWith("sqlite-vec-") && existsSync(join(cache, d, "vec0.so")))).toBe(true);
});
