import { join } from "node:path";
import { GllamError } from "../engine/errors.ts";

/** An integer flag of a benchmark driver, with its default and lower bound. */
export function intArg(value: string | undefined, fallback: number, flag: string, min = 1): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new GllamError("E_BAD_INPUT", `${flag} must be an integer of at least ${min}, got ${value}`);
  return n;
}

/** Flags every file-building driver takes. */
export const benchOutputArgs = {
  json: { type: "string", description: "Also write the figures to this file", valueHint: "path" },
  db: { type: "string", description: "Keep the benchmark's database in this new file (default: a temporary one, removed after)", valueHint: "path" },
} as const;

/** Prints the figures as JSON, and writes them to `jsonPath` when given. */
export async function reportBenchResult(result: unknown, jsonPath: string | undefined): Promise<void> {
  const text = JSON.stringify(result, null, 2);
  if (jsonPath) await Bun.write(jsonPath, `${text}\n`);
  console.log(text);
}

/**
 * This executable, to start again as another process: the compiled binary itself, or bun with the
 * CLI entry point (by its path, not Bun.main: a test that imports a driver is its own entry point).
 */
export function selfCommand(): string[] {
  const compiled = import.meta.dir.startsWith("/$bunfs") || import.meta.dir.includes("~BUN");
  return compiled ? [process.execPath] : [process.execPath, join(import.meta.dir, "../cli/main.ts")];
}
