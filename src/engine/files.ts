import { existsSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { describeError, GllamError } from "./errors.ts";

/**
 * Writes a file whole or not at all: a partial file beside it, then a rename, so a reader (or a
 * crash) never sees half of it. The folder must exist; errors are thrown as they come.
 */
export function writeFileAtomically(target: string, data: string | Uint8Array, mode = 0o644): void {
  const partial = `${target}.${process.pid}.partial`;
  try {
    writeFileSync(partial, data, { mode });
    renameSync(partial, target);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}

/** A file the user asked for (`--out`, `--json OUT`): written atomically, or E_CANNOT_OPEN saying why. */
export function writeOutputFile(path: string, data: string, what: string): void {
  const folder = dirname(resolve(path));
  if (!existsSync(folder)) throw new GllamError("E_CANNOT_OPEN", `cannot write ${what} to ${path}: folder ${folder} does not exist`);
  try {
    writeFileAtomically(path, data);
  } catch (error) {
    throw new GllamError("E_CANNOT_OPEN", `cannot write ${what} to ${path}: ${describeError(error)}`);
  }
}
