import { defineCommand, renderUsage, runCommand, type ArgsDef, type CommandDef } from "citty";
import { version } from "../../package.json";
import { findUnknownFlag, GLOBAL_VALUE_FLAGS, normalizeArgv, withDefaultFlags } from "./argv.ts";
import { askCommand } from "./commands/ask.ts";
import { backupCommand } from "./commands/backup.ts";
import { contextCommand } from "./commands/context.ts";
import { benchCommand } from "./commands/bench.ts";
import { doctorCommand } from "./commands/doctor.ts";
import { exportCommand } from "./commands/export.ts";
import { extractCommand } from "./commands/extract.ts";
import { factCommand } from "./commands/fact.ts";
import { forgetCommand } from "./commands/forget.ts";
import { importCommand } from "./commands/import.ts";
import { mcpCommand } from "./commands/mcp.ts";
import { ingestCommand } from "./commands/ingest.ts";
import { pathCommand } from "./commands/path.ts";
import { planCommand } from "./commands/plan.ts";
import { recallCommand } from "./commands/recall.ts";
import { reembedCommand } from "./commands/reembed.ts";
import { replCommand } from "./commands/repl.ts";
import { seedCommand } from "./commands/seed.ts";
import { serveCommand } from "./commands/serve.ts";
import { sleepCommand } from "./commands/sleep.ts";
import { statsCommand } from "./commands/stats.ts";
import { taxonomyCommand } from "./commands/taxonomy.ts";
import { trustCommand } from "./commands/trust.ts";
import { atTerminal, globalArgs } from "./context.ts";
import { reportError, usageError } from "./report-error.ts";
import { versionLine } from "./version.ts";

// citty types each command by its own args; the runner only needs them as a lookup table.
type AnyCommand = CommandDef<any>;
const subCommands: Record<string, AnyCommand> = {
  seed: seedCommand,
  ingest: ingestCommand,
  recall: recallCommand,
  reembed: reembedCommand,
  stats: statsCommand,
  bench: benchCommand,
  fact: factCommand,
  extract: extractCommand,
  context: contextCommand,
  ask: askCommand,
  path: pathCommand,
  forget: forgetCommand,
  trust: trustCommand,
  plan: planCommand,
  sleep: sleepCommand,
  taxonomy: taxonomyCommand,
  repl: replCommand,
  mcp: mcpCommand,
  export: exportCommand,
  import: importCommand,
  backup: backupCommand,
  doctor: doctorCommand,
  serve: serveCommand,
};

export const mainCommand = defineCommand({
  meta: { name: "gllam", version, description: "Local agentic memory: episodic, semantic and procedural memory in one SQLite file" },
  args: { ...globalArgs },
  subCommands,
});

const isHelp = (arg: string) => arg === "--help" || arg === "-h";

/** citty colours its usage text; a pipe or file gets it plain. */
async function printUsage(command: AnyCommand, parent?: AnyCommand): Promise<void> {
  const usage = await renderUsage(command, parent);
  console.log(process.stdout.isTTY ? usage : Bun.stripANSI(usage));
}

type Resolved = { command: AnyCommand | undefined; parent: AnyCommand; path: string[]; rest: string[] };

/**
 * The command a user named (descending into nested subcommands such as `bench retrieval`), its
 * parent for usage text, and the arguments left for it.
 */
function resolveCommand(args: string[]): Resolved {
  const [first, ...rest] = args;
  if (first === "help") return rest.length > 0 ? resolveCommand([...rest, "--help"]) : { command: undefined, parent: mainCommand, path: [], rest: ["--help"] };
  let resolved: Resolved = { command: undefined, parent: mainCommand, path: [], rest: args };
  let table: Record<string, AnyCommand> | undefined = subCommands;
  while (table && resolved.rest[0] !== undefined && !resolved.rest[0].startsWith("-")) {
    const [name, ...after] = resolved.rest as [string, ...string[]];
    const command: AnyCommand | undefined = table[name];
    if (!command) {
      if (resolved.command) break; // a positional argument of the command found so far
      throw usageError(`unknown command "${name}"`);
    }
    resolved = { command, parent: resolved.command ?? mainCommand, path: [...resolved.path, name], rest: after };
    table = command.subCommands as Record<string, AnyCommand> | undefined;
  }
  if (resolved.command?.subCommands && !resolved.command.run && !resolved.rest.some(isHelp)) {
    const names = Object.keys(resolved.command.subCommands).join("|");
    throw usageError(`\`gllam ${resolved.path.join(" ")}\` needs a subcommand: ${names}`);
  }
  return resolved;
}

/** Global flags alone (`gllam --db x.db`): no command, nothing but flags every command takes. */
function onlyGlobalFlags(args: string[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const flag = args[i]!.split("=")[0]!;
    if (!(flag.slice(2) in globalArgs) || !flag.startsWith("--")) return false;
    if (GLOBAL_VALUE_FLAGS.includes(flag) && !args[i]!.includes("=")) i++;
  }
  return true;
}

export type CommandLineOptions = {
  /** Flags added to the line when its command takes them and it does not set them (the REPL's start flags). */
  defaults?: [string, string?][];
};

/**
 * Runs one command line (already split into words) through the command tree; returns the exit
 * code (0 ok, 1 error, 2 usage error). Errors are printed as one line unless --debug.
 */
export async function runCommandLine(args: string[], options: CommandLineOptions = {}): Promise<number> {
  let debug = args.includes("--debug");
  try {
    const { command, parent, path, rest: given } = resolveCommand(args);
    if (!command) {
      if (given.length === 1 && (given[0] === "--version" || given[0] === "-v")) {
        console.log(versionLine());
        return 0;
      }
      if (onlyGlobalFlags(given) || given.some(isHelp)) {
        await printUsage(mainCommand);
        return 0;
      }
      throw usageError(`unknown flag ${given[0]}`);
    }
    const declared = (command.args ?? {}) as ArgsDef;
    const rest = withDefaultFlags(given, options.defaults ?? [], (flag) => flag.slice(2) in declared);
    debug = rest.includes("--debug");
    const endOfFlags = rest.indexOf("--") < 0 ? rest.length : rest.indexOf("--");
    if (rest.slice(0, endOfFlags).some(isHelp)) {
      await printUsage(command, parent);
      return 0;
    }
    const specs = Object.entries(declared).map(([name, def]) => ({ name, ...def }));
    const unknown = findUnknownFlag(rest, specs);
    if (unknown) throw usageError(`unknown flag ${unknown} for \`gllam ${path.join(" ")}\``);
    // A command may return its own exit code (`gllam plan`: 1 = no plan).
    const { result } = await runCommand(command, { rawArgs: rest });
    return typeof result === "number" ? result : 0;
  } catch (error) {
    return reportError(error, debug);
  }
}

/**
 * Runs the CLI; returns the exit code. No command at a terminal (`gllam`, `gllam --db x.db`,
 * the seed's `gllam --embeddings-server URL`) starts the REPL; elsewhere it prints the usage.
 */
export async function runCli(argv: string[]): Promise<number> {
  const args = normalizeArgv(argv);
  if (onlyGlobalFlags(args) && atTerminal()) return runCommandLine(["repl", ...args]);
  return runCommandLine(args);
}
