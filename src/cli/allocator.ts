/**
 * Long-running commands keep the memory Bun's allocator frees. mimalloc, the allocator Bun uses
 * outside the JavaScript heap, hands freed pages back to the kernel (after each full garbage
 * collection, 100 ms after a free, and by sweeping free blocks in used pages), and the next buffer
 * placed there takes a page fault for every 4 KiB again: ~300 a recall at 1M episodes (each
 * posting row bun:sqlite returns is a fresh buffer), ~11 µs each on the VM this was measured on.
 * With MIMALLOC_PURGE_DELAY=-1 (never hand back) warm recall p50 there went from 7.7-10.6 to
 * 5.4-9.2 ms and ingest ~6-15% faster; the cost is that a process holds the most it has used
 * (README "Freed memory kept"). mimalloc reads the variable once, when the process starts, so the
 * process starts again with it (process.execve: the same pid, arguments and open files) before
 * anything else is loaded. A value already set is left alone: MIMALLOC_PURGE_DELAY=100 is Bun's
 * default.
 */
import { selfCommand } from "../bench/args.ts";
import { normalizeArgv } from "./argv.ts";

const PURGE_DELAY_VARIABLE = "MIMALLOC_PURGE_DELAY";

/** Commands that answer many requests or write for long: the REPL, the servers, ingest, the benchmarks. */
const LONG_RUNNING = new Set(["serve", "mcp", "repl", "bench", "ingest", "import", "reembed", "sleep", "extract"]);

/** Whether the command line runs long (no command at a terminal starts the REPL, as runCli does). */
export function runsLong(argv: string[], atTerminal: boolean): boolean {
  const [first] = normalizeArgv(argv);
  if (first === undefined || first.startsWith("-")) return atTerminal && !argv.some((arg) => arg === "--help" || arg === "-h" || arg === "--version" || arg === "-v");
  return LONG_RUNNING.has(first);
}

/**
 * The argv that starts this program again with `argv`, from `self` (selfCommand: the compiled
 * binary, which takes the arguments alone, or bun and the entry point) and bun's runtime flags
 * (--cpu-prof, --smol), which go before the entry point.
 */
export const restartArgv = (self: string[], execArgv: string[], argv: string[]): string[] =>
  self.length === 1 ? [...self, ...argv] : [self[0]!, ...execArgv, ...self.slice(1), ...argv];

/** Starts the process again with freed memory kept, when the command runs long and nothing set the variable; otherwise returns. */
export function keepFreedMemory(argv: string[]): void {
  if (process.env[PURGE_DELAY_VARIABLE] !== undefined || typeof process.execve !== "function") return;
  if (!runsLong(argv, process.stdin.isTTY === true && process.stdout.isTTY === true)) return;
  try {
    process.execve(process.execPath, restartArgv(selfCommand(), process.execArgv, argv), { ...process.env, [PURGE_DELAY_VARIABLE]: "-1" });
  } catch {
    // execve failed (the executable moved, a sandbox forbids it): run as started, with Bun's default.
  }
}
