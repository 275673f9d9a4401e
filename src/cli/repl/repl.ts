/**
 * The REPL (`gllam` on a terminal with no command, `gllam repl`): the CLI's own command lines run
 * against one memory kept open for the session (see gllam/session.ts), so the model loads once.
 * Ctrl-C abandons a running command and returns to the prompt; at the prompt, Ctrl-C twice,
 * Ctrl-D or `exit` leaves.
 */
import { intro, log, outro } from "@clack/prompts";
import { version } from "../../../package.json";
import { describeError, GllamError } from "../../engine/errors.ts";
import { GllamSession } from "../../gllam/session.ts";
import { activateSession, atTerminal, globalArgs, settingsOf, type GlobalArgs } from "../context.ts";
import { reportError, usageError } from "../report-error.ts";
import { runCommandLine } from "../run.ts";
import { splitCommandLine } from "../shell-words.ts";
import { defaultHistoryFile, History } from "./history.ts";
import { readCommandLine } from "./line-prompt.ts";
import { ReplOutput } from "./output.ts";

const REPL_HELP = [
  "Type gllam commands without `gllam`: recall web server · fact add Caddy binds_to Tailscale --caveat \"...\" · stats · ingest chat.jsonl · help recall",
  "The flags the REPL started with apply to every command; a command's own flags win.",
  "REPL commands: help, history, exit. Ctrl-C cancels a running command; Ctrl-C twice, Ctrl-D or exit leaves.",
].join("\n");

/** The start flags as [flag, value?] pairs, added to each command line that takes them. */
export function startFlags(args: GlobalArgs): [string, string?][] {
  return Object.keys(globalArgs).flatMap((name): [string, string?][] => {
    const value = args[name as keyof GlobalArgs];
    if (value === undefined || value === false) return [];
    return [value === true ? [`--${name}`] : [`--${name}`, String(value)]];
  });
}

export async function startRepl(args: GlobalArgs): Promise<never> {
  if (!atTerminal()) throw usageError("the REPL needs a terminal (stdin and stdout); run commands one at a time instead");
  const output = new ReplOutput();
  output.install();
  const session = new GllamSession(settingsOf(args), {
    warn: (line) => console.error(line),
    progress: (done, total) => process.stderr.write(`\r${done}/${total} rows\x1b[K${done === total ? "\n" : ""}`),
    step: (label, work) => output.step(label, work),
  });
  activateSession(session);
  const stopIgnoring = ignoreStraySigint();
  try {
    intro(`gllam ${version}`);
    await describeSession(session);
    await loop(session, output, startFlags(args), args.debug === true);
    outro("bye");
  } finally {
    stopIgnoring();
    activateSession(undefined);
    session.close();
    output.uninstall();
  }
  // Leaving ends the process, whatever an abandoned command still holds (a planner subprocess
  // until its timeout, a pending read).
  process.exit(0);
}

/** The intro: which file, what it holds, which embedders. */
async function describeSession(session: GllamSession): Promise<void> {
  const gllam = await say(async () => {
    const opened = await session.open({ readOnly: true });
    const { tables } = opened.stats();
    const counts = `${tables.episodes ?? 0} episodes · ${tables.semantic_nodes ?? 0} nodes · ${tables.semantic_links ?? 0} links · ${tables.procedural_knowledge ?? 0} procedures`;
    log.info(`${opened.path}\n${counts}`);
    return opened;
  });
  await say(async () => {
    const tiers = await session.tiers();
    const staticTier = (gllam?.staticEmbedder ?? tiers.staticEmbedder)?.modelVersion;
    log.info(`embedder ${tiers.name}: ${tiers.embedder.modelVersion}${staticTier && staticTier !== tiers.embedder.modelVersion ? ` + static ${staticTier}` : ""}`);
  });
  log.message("help lists the commands; exit or Ctrl-D leaves", { symbol: " " });
}

/** What a part of the intro found, or why it could not (a database not created yet is no error). */
async function say<T>(part: () => Promise<T>): Promise<T | undefined> {
  try {
    return await part();
  } catch (error) {
    const code = error instanceof GllamError ? error.code : undefined;
    if (code === "E_NOT_FOUND") log.warn(describeError(error));
    else log.error(`${describeError(error)}${code ? ` [${code}]` : ""}`);
    return undefined;
  }
}

async function loop(session: GllamSession, output: ReplOutput, defaults: [string, string?][], debug: boolean): Promise<void> {
  const history = new History(defaultHistoryFile());
  let interrupted = false;
  for (;;) {
    const answer = await readCommandLine(history.newestFirst, output.terminal);
    if (answer.kind === "eof") return;
    if (answer.kind === "interrupt") {
      if (interrupted) return;
      interrupted = true;
      log.message("Ctrl-C again (or Ctrl-D, or exit) leaves", { symbol: " " });
      continue;
    }
    interrupted = false;
    history.add(answer.text);
    let words: string[];
    try {
      words = splitCommandLine(answer.text);
    } catch (error) {
      reportError(error, debug);
      continue;
    }
    if (words.length === 0) continue;
    const [first, ...rest] = words as [string, ...string[]];
    if (first === "exit" || first === "quit") return;
    if (first === "history") {
      history.session.forEach((line, i) => console.log(`${String(i + 1).padStart(4)}  ${line}`));
    } else if (first === "help" && rest.length === 0) {
      console.log(REPL_HELP);
      await runCommandLine(["--help"]);
    } else if (first === "repl") {
      reportError(usageError("this is the REPL already"), debug);
    } else {
      await runInterruptibly(words.join(" "), () => runCommandLine(words, { defaults }), session, output);
    }
  }
}

/**
 * Runs a command until it ends or Ctrl-C. Ctrl-C arrives as SIGINT, or, while a clack spinner or
 * progress bar holds the terminal in raw mode, as its call to process.exit: both abandon the
 * command. Its memory is closed under it, so it stops at its next use of the file with what it
 * committed (every write is a transaction; ingest resumes where it stopped), and it prints no more.
 */
async function runInterruptibly(label: string, command: () => Promise<number>, session: GllamSession, output: ReplOutput): Promise<void> {
  const { promise: interrupted, resolve: interrupt } = Promise.withResolvers<"interrupted">();
  const sigint = () => interrupt("interrupted");
  const exit = process.exit;
  process.on("SIGINT", sigint);
  // clack's raw-mode Ctrl-C handler exits the process; here it means "stop this command". The
  // SIGINT listeners hear it too, so the command's own spinners take themselves off the screen.
  process.exit = (() => void process.emit("SIGINT")) as typeof process.exit;
  const run = output.run(label, command);
  try {
    const outcome = await Promise.race([run.done, interrupted]);
    if (outcome !== "interrupted") return;
    run.cancel();
    run.done.catch(() => {});
    session.discard();
    log.warn(`cancelled: ${label}`);
  } finally {
    process.exit = exit;
    process.off("SIGINT", sigint);
  }
}

/** Between commands (the prompt reads Ctrl-C as a key) a stray SIGINT must not end the session. */
function ignoreStraySigint(): () => void {
  const ignore = () => {};
  process.on("SIGINT", ignore);
  return () => process.off("SIGINT", ignore);
}
