/**
 * What the REPL does with the terminal while a command runs: a spinner when the command keeps the
 * person waiting (after a moment of silence, or for a slow step such as loading the model), gone
 * as soon as the command prints; and silence for a command abandoned with Ctrl-C, which may still
 * be winding down while the next one runs. Each command runs in its own async context, so output
 * is told apart by who writes it, not by when.
 *
 * The spinner is drawn here rather than with clack's, which puts the terminal in raw mode: a
 * Ctrl-C pressed while a command keeps the event loop busy would then be a byte waiting to be
 * read instead of a SIGINT.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { styleText } from "node:util";
import { symbol, unicode } from "@clack/prompts";

type CommandContext = { cancelled: boolean };

/** How long a command may be silent before the spinner shows. */
const SPINNER_DELAY_MS = 300;

const CONSOLE_METHODS = ["log", "info", "warn", "error", "debug"] as const;

export class ReplOutput {
  readonly #context = new AsyncLocalStorage<CommandContext>();
  readonly #restore: (() => void)[] = [];
  #writeOut: (text: string) => boolean = (text) => process.stdout.write(text);
  /** stdout for the REPL's own prompt, past the routing (keys may arrive in an abandoned command's context). */
  #direct: NodeJS.WriteStream = process.stdout;
  #spinner: Spinner | undefined;
  #pending: ReturnType<typeof setTimeout> | undefined;

  /** Routes the process's output through the REPL until uninstall(). */
  install(): void {
    for (const method of CONSOLE_METHODS) {
      const original = console[method];
      console[method] = (...args: unknown[]) => this.#let() && original.apply(console, args);
      this.#restore.push(() => void (console[method] = original));
    }
    for (const stream of [process.stdout, process.stderr]) {
      const original = stream.write;
      const bound = original.bind(stream) as (text: string) => boolean;
      if (stream === process.stdout) {
        this.#writeOut = bound;
        this.#direct = Object.create(process.stdout, { write: { value: bound } });
      }
      stream.write = ((...args: Parameters<typeof original>) => (this.#let() ? original.apply(stream, args) : true)) as typeof original;
      this.#restore.push(() => void (stream.write = original));
    }
  }

  /**
   * The terminal for the REPL's prompt. Its keys come from stdin, which may have been resumed in an
   * abandoned command's async context: what the prompt draws must not be taken for that command's.
   */
  get terminal(): NodeJS.WriteStream {
    return this.#direct;
  }

  uninstall(): void {
    this.quiet();
    for (const restore of this.#restore.splice(0)) restore();
  }

  /** Whether output may pass now: not from an abandoned command; and the spinner goes first. */
  #let(): boolean {
    if (this.#context.getStore()?.cancelled) return false;
    this.quiet();
    return true;
  }

  /** Runs a command in its own context; cancel() silences whatever it still prints. */
  run<T>(label: string, work: () => Promise<T>): { done: Promise<T>; cancel: () => void } {
    const context: CommandContext = { cancelled: false };
    this.#pending = setTimeout(() => this.#spin(label), SPINNER_DELAY_MS);
    const done = this.#context.run(context, work).finally(() => {
      if (!context.cancelled) this.quiet();
    });
    return {
      done,
      cancel: () => {
        context.cancelled = true;
        this.quiet();
      },
    };
  }

  /** A slow step: the spinner says what it waits for, and a line says when it is done. */
  async step<T>(label: string, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const mine = this.#spin(label);
    // Another command may own the screen by the time an abandoned one's step ends: leave it alone.
    const ours = () => this.#spinner === mine && !this.#context.getStore()?.cancelled;
    try {
      const result = await work();
      if (ours()) {
        this.#spinner = undefined;
        mine.stop(`${label}: done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      }
      return result;
    } finally {
      if (ours()) this.quiet();
    }
  }

  /** Takes the spinner off the screen (and one not shown yet). */
  quiet(): void {
    clearTimeout(this.#pending);
    this.#pending = undefined;
    const active = this.#spinner;
    this.#spinner = undefined;
    active?.clear();
  }

  #spin(label: string): Spinner {
    this.quiet();
    const started = new Spinner(label, this.#writeOut);
    this.#spinner = started;
    return started;
  }
}

const FRAMES = unicode ? ["◒", "◐", "◓", "◑"] : ["•", "o", "O", "0"];

/** A spinner line; writes past the REPL's routing (its frames are not a command's output). */
class Spinner {
  readonly #write: (text: string) => void;
  readonly #timer: ReturnType<typeof setInterval>;

  constructor(label: string, write: (text: string) => void) {
    this.#write = write;
    let frame = 0;
    const draw = () => write(`\r${styleText("magenta", FRAMES[frame++ % FRAMES.length]!)}  ${label}\x1b[K`);
    write("\x1b[?25l");
    draw();
    this.#timer = setInterval(draw, 120);
  }

  /** Replaces the spinner with a line saying what was done. */
  stop(message: string): void {
    this.clear();
    this.#write(`${symbol("submit")}  ${message}\n`);
  }

  clear(): void {
    clearInterval(this.#timer);
    this.#write("\r\x1b[K\x1b[?25h");
  }
}
