/**
 * A program in a real pseudo-terminal: a tmux session on a private server (its own socket in a
 * temp folder removed at close, so nothing is shared with other tests or the user's tmux), driven by send-keys and read by
 * capture-pane. The session stays after the program exits, so its exit status can be read.
 */
import { afterAll } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A process's state letter and wait status from /proc (undefined once it is gone). */
function readStat(pid: string): { state: string; waitStatus: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = text.slice(text.lastIndexOf(")") + 2).trim().split(" ");
    return { state: fields[0]!, waitStatus: Number(fields[49]) };
  } catch {
    return undefined;
  }
}

export class Pty {
  readonly #socket: string;

  private constructor(socket: string) {
    this.#socket = socket;
  }

  /** Starts argv (no shell) in a terminal of 200 x 50 with these extra environment variables. */
  static start(argv: string[], options: { cwd: string; env?: Record<string, string> }): Pty {
    const pty = new Pty(join(mkdtempSync(join(tmpdir(), "gllam-pty-")), "tmux.sock"));
    const env = Object.entries(options.env ?? {}).flatMap(([key, value]) => ["-e", `${key}=${value}`]);
    pty.#tmux(["new-session", "-d", "-s", "main", "-x", "200", "-y", "50", "-c", options.cwd, ...env, ...argv]);
    pty.#tmux(["set-option", "-t", "main", "remain-on-exit", "on"]);
    pty.#tmux(["set-option", "-t", "main", "history-limit", "10000"]);
    afterAll(() => pty.close());
    return pty;
  }

  #tmux(args: string[]): string {
    // The server starts with this environment (the test preload sets GLLAM_STATIC_TABLE in it).
    const run = Bun.spawnSync(["tmux", "-S", this.#socket, ...args], { env: { ...process.env }, stdout: "pipe", stderr: "pipe" });
    if (run.exitCode !== 0) throw new Error(`tmux ${args[0]} failed: ${run.stderr.toString()}`);
    return run.stdout.toString();
  }

  /** Types text (literally) and presses Enter. */
  type(line: string): void {
    this.#tmux(["send-keys", "-t", "main", "-l", line]);
    this.#tmux(["send-keys", "-t", "main", "Enter"]);
  }

  /** Waits for the last line to be `marker` (a prompt waiting for input), then types the line. */
  async typeAtPrompt(marker: string, line: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.screen().trimEnd().split("\n").at(-1) !== marker) {
      if (Date.now() > deadline) throw new Error(`no prompt ${marker} on:\n${this.screen()}`);
      await Bun.sleep(50);
    }
    this.type(line);
  }

  /** Presses keys by tmux name: C-c, C-d, Up, Enter. */
  press(...keys: string[]): void {
    this.#tmux(["send-keys", "-t", "main", ...keys]);
  }

  /** Everything the terminal shows and scrolled past, wrapped lines joined. */
  screen(): string {
    return this.#tmux(["capture-pane", "-p", "-J", "-S", "-", "-t", "main"]);
  }

  /** Waits until the screen matches (or holds `count` matches of a global pattern); returns the screen. */
  async waitFor(pattern: RegExp, timeoutMs = 30_000, count = 1): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      const found = pattern.global ? (screen.match(pattern) ?? []).length >= count : pattern.test(screen);
      if (found) return screen;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern} on:\n${screen}`);
      await Bun.sleep(100);
    }
  }

  /** The program's exit status once it has exited, else undefined; a signal that killed it throws. */
  exitStatus(): number | undefined {
    const [dead, status, signal, pid] = this.#tmux(["display-message", "-p", "-t", "main", "#{pane_dead}:#{pane_dead_status}:#{pane_dead_signal}:#{pane_pid}"])
      .trim()
      .split(":");
    if (signal) throw new Error(`the program was killed by signal ${signal}:\n${this.screen()}`);
    if (dead === "1" && status !== "") return Number(status);
    // tmux may be slow to reap it: an exited program is a zombie whose /proc/PID/stat holds its wait status (field 52).
    const stat = readStat(pid!);
    if (stat?.state !== "Z") return undefined;
    if (stat.waitStatus & 0x7f) throw new Error(`the program was killed by signal ${stat.waitStatus & 0x7f}:\n${this.screen()}`);
    return (stat.waitStatus >> 8) & 0xff;
  }

  async waitForExit(timeoutMs = 10_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = this.exitStatus();
      if (status !== undefined) return status;
      if (Date.now() > deadline) throw new Error(`the program did not exit (${this.#processState()}):\n${this.screen()}`);
      await Bun.sleep(100);
    }
  }

  /** The pane's process and its threads, as the kernel sees them (for a program that does not exit). */
  #processState(): string {
    const [pid, tty] = this.#tmux(["display-message", "-p", "-t", "main", "#{pane_pid} #{pane_tty}"]).trim().split(" ");
    const run = Bun.spawnSync(["ps", "-L", "-o", "pid,ppid,tid,stat,wchan:32,comm", "-p", pid!], { stdout: "pipe" });
    const onTty = Bun.spawnSync(["ps", "-o", "pid,ppid,stat,comm", "-t", tty!.replace("/dev/", "")], { stdout: "pipe" });
    return `pid ${pid}\n${run.stdout.toString()}\non ${tty}:\n${onTty.stdout.toString()}`;
  }

  close(): void {
    Bun.spawnSync(["tmux", "-S", this.#socket, "kill-server"], { stdout: "ignore", stderr: "ignore" });
    rmSync(join(this.#socket, ".."), { recursive: true, force: true });
  }
}
