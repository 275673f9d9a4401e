/**
 * The REPL's history: the lines of this session (the `history` command), and the lines of earlier
 * sessions from the history file (up and down arrows), which each line is appended to, capped.
 * History is a convenience: a file that cannot be read or written leaves it to the session.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { cacheDirs } from "../../gllam/tools.ts";

/** Lines kept in the history file; older ones are dropped when the file is read. */
export const HISTORY_CAP = 1000;

export const defaultHistoryFile = (): string => join(cacheDirs()[0]!, "repl-history");

export class History {
  readonly file: string | undefined;
  /** Every line, oldest first: earlier sessions' (from the file), then this session's. */
  readonly #all: string[];
  readonly #session: string[] = [];

  constructor(file: string | undefined) {
    this.file = file;
    this.#all = file ? readHistoryFile(file) : [];
  }

  /** This session's lines, oldest first. */
  get session(): readonly string[] {
    return this.#session;
  }

  /** Every line, newest first (how readline walks it with the up arrow). */
  get newestFirst(): string[] {
    return this.#all.toReversed();
  }

  add(line: string): void {
    const text = line.trim();
    if (!text) return;
    this.#session.push(text);
    if (this.#all.at(-1) === text) return;
    this.#all.push(text);
    if (!this.file) return;
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      appendFileSync(this.file, `${text}\n`, { mode: 0o600 });
    } catch {
      // A read-only HOME: the session keeps its history in memory.
    }
  }
}

/** The file's last HISTORY_CAP lines; the file is rewritten with them when it held more. */
function readHistoryFile(file: string): string[] {
  try {
    if (!existsSync(file)) return [];
    const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
    if (lines.length <= HISTORY_CAP) return lines;
    const kept = lines.slice(-HISTORY_CAP);
    writeFileSync(file, `${kept.join("\n")}\n`, { mode: 0o600 });
    return kept;
  } catch {
    return [];
  }
}
