import { closeSync, existsSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
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

/** Writes text to a file descriptor through a buffer, so a big stream costs a few large writes. */
export class BufferedWriter {
  readonly #fd: number;
  readonly #limit: number;
  #chunks: string[] = [];
  #size = 0;

  constructor(fd: number, limit = 1 << 20) {
    this.#fd = fd;
    this.#limit = limit;
  }

  write(text: string): void {
    this.#chunks.push(text);
    this.#size += text.length;
    if (this.#size >= this.#limit) this.flush();
  }

  flush(): void {
    if (this.#size === 0) return;
    const bytes = Buffer.from(this.#chunks.join(""));
    this.#chunks = [];
    this.#size = 0;
    for (let at = 0; at < bytes.length; ) {
      try {
        at += writeSync(this.#fd, bytes, at);
      } catch (error) {
        // A pipe whose reader is slow: wait for it rather than lose the stream.
        if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
        Bun.sleepSync(1);
      }
    }
  }
}

/**
 * A file the user asked for, streamed (`gllam export --out`): written whole or not at all, to a
 * partial file beside it renamed at the end; E_CANNOT_OPEN saying why it cannot be written.
 */
export function writeOutputStream<T>(path: string, what: string, fill: (write: (text: string) => void) => T): T {
  const target = resolve(path);
  const folder = dirname(target);
  if (!existsSync(folder)) throw new GllamError("E_CANNOT_OPEN", `cannot write ${what} to ${path}: folder ${folder} does not exist`);
  const partial = `${target}.${process.pid}.partial`;
  let fd: number;
  try {
    fd = openSync(partial, "w", 0o644);
  } catch (error) {
    throw new GllamError("E_CANNOT_OPEN", `cannot write ${what} to ${path}: ${describeError(error)}`);
  }
  let result: T;
  try {
    const writer = new BufferedWriter(fd);
    result = fill((text) => writer.write(text));
    writer.flush();
  } catch (error) {
    closeSync(fd);
    rmSync(partial, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(partial, target);
  return result;
}
