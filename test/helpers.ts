import { afterAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Gllam, type GllamOptions } from "../src/engine/gllam.ts";
import { createLocalModelEmbedder } from "../src/embed/local-model.ts";

export const REPO_ROOT = join(import.meta.dir, "..");

/** A fresh folder under the system temp dir, removed when the test file ends. */
export function makeTempDir(prefix = "gllam-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** One bundled-model embedder per test process: the model loads once. */
export const localEmbedder = createLocalModelEmbedder();

let counter = 0;
export async function openTempGllam(dir: string, options: GllamOptions = {}): Promise<Gllam> {
  return Gllam.open(join(dir, `memory-${++counter}.db`), { embedder: localEmbedder, ...options });
}

/** Runs the CLI from source in a subprocess (argument array, no shell). */
export function runGllam(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const proc = Bun.spawnSync(["bun", join(REPO_ROOT, "src/cli/main.ts"), ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...process.env, ...options.env },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: proc.exitCode, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
}
