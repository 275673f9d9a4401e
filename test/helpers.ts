import { afterAll, expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GllamError, type GllamErrorCode } from "../src/engine/errors.ts";
import { Gllam, type GllamOptions } from "../src/gllam/gllam.ts";
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

/** Runs an action (sync or async) that must fail with a GllamError of this code, and returns the error. */
export async function expectGllamError(action: (() => unknown) | Promise<unknown>, code: GllamErrorCode, message?: RegExp): Promise<GllamError> {
  let error: unknown;
  try {
    await (typeof action === "function" ? action() : action);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(GllamError);
  expect((error as GllamError).code).toBe(code);
  if (message) expect((error as GllamError).message).toMatch(message);
  return error as GllamError;
}
