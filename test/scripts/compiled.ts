/**
 * Running a compiled gllam the way a user would: copied to a folder with no node_modules anywhere
 * above it, with a fresh HOME (so the sqlite-vec extension is copied out of the binary anew) and a
 * bare PATH, optionally through an emulator (qemu-user for another architecture).
 */
import { expect } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export type CompiledRun = (...args: string[]) => { code: number | null; stdout: string; stderr: string };

export function installCompiled(binary: string, work: string, options: { emulator?: string[]; env?: Record<string, string> } = {}) {
  const runDir = join(work, "elsewhere");
  const home = join(work, "home");
  mkdirSync(runDir, { recursive: true });
  mkdirSync(home, { recursive: true });
  copyFileSync(binary, join(runDir, "gllam"));
  expect(existsSync(join(work, "node_modules"))).toBe(false);
  const env = { PATH: "/usr/bin:/bin", HOME: home, ...options.env };
  const run: CompiledRun = (...args) => {
    const proc = Bun.spawnSync([...(options.emulator ?? []), join(runDir, "gllam"), ...args], { cwd: runDir, env, stdout: "pipe", stderr: "pipe" });
    return { code: proc.exitCode, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
  };
  /** The sqlite-vec library the binary copied into HOME's cache, by file name (vec0.so, vec0.dylib...). */
  const extractedLibrary = (file: string) => {
    const cache = join(home, ".cache", "gllam");
    const folder = readdirSync(cache).find((dir) => dir.startsWith("sqlite-vec-") && existsSync(join(cache, dir, file)));
    return folder && join(cache, folder, file);
  };
  return { run, runDir, home, extractedLibrary };
}

/**
 * Seed, then recall by vector search: what every compiled target must do. `staticTier` keeps to the
 * static table (no model to load: much faster under emulation); the test table ranks "web server"
 * less well than the model, so Caddy is named and the vector search shows in its similar nodes.
 */
export function expectSeedAndRecall(run: CompiledRun, runDir: string, options: { staticTier?: boolean } = {}): void {
  const tier = options.staticTier ? ["--embedder", "static"] : [];
  const seeded = run("seed", ...tier);
  expect(seeded).toMatchObject({ code: 0, stderr: "" });
  expect(seeded.stdout).toContain("10 nodes, 12 new links, 10 vectors");
  expect(existsSync(join(runDir, "gllam.db"))).toBe(true);
  const recalled = run("recall", "web server", ...tier, ...(options.staticTier ? ["--entity", "caddy"] : []));
  expect(recalled).toMatchObject({ code: 0, stderr: "" });
  expect(recalled.stdout.match(/^## (.+)$/m)?.[1]).toBe("Caddy (service)");
  expect(recalled.stdout).toMatch(/^## Similar nodes\n1\. .+ — distance \d+\.\d+$/m);
}

/** Beyond seed and recall: episodes embedded by the worker pool, and stats from the static table inside. */
export function expectIngestAndStats(run: CompiledRun, runDir: string): void {
  // The worker is an entry point inside the executable.
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
}
