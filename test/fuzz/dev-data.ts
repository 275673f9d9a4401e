/**
 * The dev data sets (shared/data, beside the project or above it): read at test time, never copied
 * into the repository. Undefined when absent, so tests that need them skip.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { REPO_ROOT } from "../helpers.ts";

export function devDataPath(...parts: string[]): string | undefined {
  for (let dir = REPO_ROOT; ; dir = dirname(dir)) {
    const candidate = join(dir, "shared", "data", ...parts);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}
