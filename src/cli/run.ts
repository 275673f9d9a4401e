import { defineCommand, renderUsage, runCommand, type ArgsDef, type CommandDef } from "citty";
import { version } from "../../package.json";
import { findUnknownFlag, normalizeArgv } from "./argv.ts";
import { benchCommand } from "./commands/bench.ts";
import { factCommand } from "./commands/fact.ts";
import { forgetCommand } from "./commands/forget.ts";
import { ingestCommand } from "./commands/ingest.ts";
import { pathCommand } from "./commands/path.ts";
import { planCommand } from "./commands/plan.ts";
import { recallCommand } from "./commands/recall.ts";
import { reembedCommand } from "./commands/reembed.ts";
import { seedCommand } from "./commands/seed.ts";
import { sleepCommand } from "./commands/sleep.ts";
import { statsCommand } from "./commands/stats.ts";
import { taxonomyCommand } from "./commands/taxonomy.ts";
import { trustCommand } from "./commands/trust.ts";
import { globalArgs } from "./context.ts";
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
  path: pathCommand,
  forget: forgetCommand,
  trust: trustCommand,
  plan: planCommand,
  sleep: sleepCommand,
  taxonomy: taxonomyCommand,
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

/** Runs the CLI; returns the exit code (0 ok, 1 error, 2 usage error). Errors are one line unless --debug. */
export async function runCli(argv: string[]): Promise<number> {
  const args = normalizeArgv(argv);
  const debug = args.includes("--debug");
  try {
    const { command, parent, path, rest } = resolveCommand(args);
    const endOfFlags = rest.indexOf("--") < 0 ? rest.length : rest.indexOf("--");
    if (!command) {
      if (rest.length === 1 && (rest[0] === "--version" || rest[0] === "-v")) {
        console.log(versionLine());
        return 0;
      }
      if (rest.length === 0 || rest.some(isHelp)) {
        await printUsage(mainCommand);
        return 0;
      }
      throw usageError(`unknown flag ${rest[0]}`);
    }
    if (rest.slice(0, endOfFlags).some(isHelp)) {
      await printUsage(command, parent);
      return 0;
    }
    const specs = Object.entries((command.args ?? {}) as ArgsDef).map(([name, def]) => ({ name, ...def }));
    const unknown = findUnknownFlag(rest, specs);
    if (unknown) throw usageError(`unknown flag ${unknown} for \`gllam ${path.join(" ")}\``);
    // A command may return its own exit code (`gllam plan`: 1 = no plan).
    const { result } = await runCommand(command, { rawArgs: rest });
    return typeof result === "number" ? result : 0;
  } catch (error) {
    return reportError(error, debug);
  }
}
