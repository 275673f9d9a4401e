/**
 * Pure argv rewriting before citty sees it: the seed specification's spellings (`-seed`,
 * `--recall "..."`) become subcommands, and global flags given before the subcommand move after it
 * so every command parses them the same way.
 */

export const GLOBAL_VALUE_FLAGS = ["--db", "--embeddings-server", "--embedder", "--config", "--busy-timeout", "--llm-server", "--llm-model"];

export function normalizeArgv(argv: string[]): string[] {
  const args = [...argv];
  const seedAt = args.findIndex((a) => a === "-seed" || a === "--seed");
  // After a subcommand (`gllam sleep --seed 7`) it is that command's flag, not the seed spelling.
  if (seedAt >= 0 && !hasPositionalBefore(args, seedAt)) {
    args.splice(seedAt, 1);
    return hoistSubcommand(["seed", ...args]);
  }
  const recallAt = args.findIndex((a) => a === "-recall" || a === "--recall" || a.startsWith("--recall="));
  if (recallAt >= 0) {
    const flag = args[recallAt]!;
    const inline = flag.includes("=") ? [flag.slice(flag.indexOf("=") + 1)] : [];
    const taken = inline.length > 0 ? 1 : 2;
    const query = inline.length > 0 ? inline : args.slice(recallAt + 1, recallAt + 2);
    args.splice(recallAt, taken);
    return ["recall", ...query, ...args.map((a) => (a === "-entity" ? "--entity" : a))];
  }
  return hoistSubcommand(args);
}

function hasPositionalBefore(args: string[], end: number): boolean {
  for (let i = 0; i < end; i++) {
    if (GLOBAL_VALUE_FLAGS.includes(args[i]!)) i++;
    else if (!args[i]!.startsWith("-")) return true;
  }
  return false;
}

/**
 * Moves leading global flags (and their values) behind the positionals that follow them: the
 * subcommand path (`fact add`) and its arguments, so nested commands see them too.
 */
function hoistSubcommand(args: string[]): string[] {
  const leading: string[] = [];
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-") && args[i] !== "--") {
    const flag = args[i]!;
    leading.push(flag);
    if (GLOBAL_VALUE_FLAGS.includes(flag) && i + 1 < args.length) leading.push(args[++i]!);
    i++;
  }
  if (i >= args.length) return args;
  let end = i;
  while (end < args.length && !args[end]!.startsWith("-")) end++;
  return [...args.slice(i, end), ...leading, ...args.slice(end)];
}

export type FlagSpec = { name: string; alias?: string | string[]; type?: string };

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The first flag a command does not declare, or undefined. Values of value flags are skipped. */
export function findUnknownFlag(args: string[], specs: FlagSpec[]): string | undefined {
  const known = new Map<string, FlagSpec>();
  for (const spec of specs) {
    const aliases = spec.alias === undefined ? [] : Array.isArray(spec.alias) ? spec.alias : [spec.alias];
    for (const name of [spec.name, kebab(spec.name), ...aliases]) known.set(name, spec);
  }
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") return undefined;
    if (!arg.startsWith("-") || arg === "-" || /^-\d/.test(arg)) continue;
    const name = arg.replace(/^--?/, "").split("=")[0]!;
    const spec = known.get(name) ?? (name.startsWith("no-") && known.get(name.slice(3))?.type === "boolean" ? known.get(name.slice(3)) : undefined);
    if (!spec) return arg.split("=")[0];
    if ((spec.type === "string" || spec.type === "enum") && !arg.includes("=")) i++;
  }
  return undefined;
}

/** The flag names a command line sets (`--db x`, `--db=x`, `--debug`), up to `--`. */
export function flagsSet(args: string[]): Set<string> {
  const end = args.indexOf("--");
  return new Set((end < 0 ? args : args.slice(0, end)).filter((a) => a.startsWith("--")).map((a) => a.split("=")[0]!));
}

/**
 * Flags given once for many command lines (the REPL's start flags), added to a line that does not
 * set them itself and whose command declares them: `defaults` is a list of [flag, value?] pairs.
 */
export function withDefaultFlags(args: string[], defaults: [string, string?][], declared: (flag: string) => boolean): string[] {
  const set = flagsSet(args);
  const added = defaults.filter(([flag]) => !set.has(flag) && declared(flag)).flatMap(([flag, value]) => (value === undefined ? [flag] : [flag, value]));
  if (added.length === 0) return args;
  const end = args.indexOf("--");
  return end < 0 ? [...args, ...added] : [...args.slice(0, end), ...added, ...args.slice(end)];
}
