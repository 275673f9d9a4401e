import * as v from "valibot";
import { parseScope } from "../memory/parse.ts";
import { IntegerSchema } from "../gllam/operation.ts";
import { GllamError } from "../gllam/types.ts";
import type { Gllam } from "../gllam/gllam.ts";
import { DEFAULT_EMBEDDER, withGllam, type GllamSettings, type OpenMode } from "../gllam/open.ts";
import { sameSettings, type GllamSession } from "../gllam/session.ts";

/** Flags every command takes (seed names: --db, --embeddings-server). */
export const globalArgs = {
  db: { type: "string", description: "SQLite file (default: $DATABASE_PATH, else ./gllam.db)", valueHint: "path" },
  "embeddings-server": {
    type: "string",
    description: "Embeddings server (llama.cpp or OpenAI-compatible; default: $EMBEDDINGS_SERVER, else the bundled model)",
    valueHint: "url",
  },
  embedder: {
    type: "string",
    description: `Embedding tiers: static (static vectors only), model (static at ingest + the bundled model in the background) or http (static + an embeddings server); default: $GLLAM_EMBEDDER, else http when a server is set, else ${DEFAULT_EMBEDDER}`,
    valueHint: "name",
  },
  config: { type: "string", description: "Agentic memory config JSON (default: $GLLAM_CONFIG, else the shipped one)", valueHint: "path" },
  "busy-timeout": {
    type: "string",
    description: "Seconds a write waits while another process writes to the file, then fails (default: $GLLAM_BUSY_TIMEOUT, else 60)",
    valueHint: "seconds",
  },
  "llm-server": {
    type: "string",
    description: "OpenAI-compatible LLM server for both roles (default: $STRONG_TEXT_SERVER / $FAST_TEXT_SERVER, else the config's llm entry)",
    valueHint: "url",
  },
  "llm-model": { type: "string", description: "LLM model for both roles (default: $STRONG_LLM_MODEL / $FAST_LLM_MODEL)", valueHint: "name" },
  debug: { type: "boolean", description: "Print stack traces on errors" },
} as const;

/** Whether a person is at a terminal (stdin and stdout): the REPL and questions need one. */
export const atTerminal = (): boolean => process.stdin.isTTY === true && process.stdout.isTTY === true;

/** The --scope flag of every command that reads or writes memory. */
export const scopeArg = { type: "string", description: "Memory scope (default: default)", valueHint: "scope" } as const;

/** The --scope flag's value as every layer reads it (ScopeSchema: trimmed, checked), or an error naming --scope. */
export const scopeOf = (args: { scope?: string }): string => parseScope(args.scope, "--scope");

export type GlobalArgs = {
  db?: string;
  "embeddings-server"?: string;
  embedder?: string;
  config?: string;
  "busy-timeout"?: string;
  "llm-server"?: string;
  "llm-model"?: string;
  debug?: boolean;
};

/** The settings the global flags give (the environment and defaults fill the rest when memory opens). */
export const settingsOf = (args: GlobalArgs): GllamSettings => ({
  db: args.db,
  embeddingsServer: args["embeddings-server"],
  embedder: args.embedder,
  config: args.config,
  busyTimeout: args["busy-timeout"],
  llmServer: args["llm-server"],
  llmModel: args["llm-model"],
});

/** The REPL's session while it runs: commands with its settings use its open memory. */
let activeSession: GllamSession | undefined;

export function activateSession(session: GllamSession | undefined): void {
  activeSession = session;
}

/**
 * Runs fn with memory open as the flags say. Alone (one command per process) it opens and always
 * closes it; in a session with the same settings it uses the session's memory, left open for the
 * next command (flags that differ get a memory of their own, closed after).
 */
export async function withEngine<T>(args: GlobalArgs, mode: OpenMode, fn: (gllam: Gllam) => Promise<T>): Promise<T> {
  const settings = settingsOf(args);
  if (activeSession && sameSettings(settings, activeSession.settings)) return fn(await activeSession.open(mode));
  return withGllam(settings, mode, fn, activeSession?.notices);
}

/** --workers of the long-running faces (gllam mcp, gllam serve): background workers giving remembered episodes their model vectors. */
export const backgroundWorkersArg = {
  type: "string",
  description: "Background workers giving remembered episodes their model vectors (default 1; 0 for none)",
  valueHint: "n",
} as const;

/** An integer flag in [min, max] as given on the command line, or E_BAD_INPUT naming the flag. */
export function integerFlag(text: string | undefined, fallback: number, flag: string, min: number, max: number): number {
  if (text === undefined) return fallback;
  const result = v.safeParse(IntegerSchema(min, max), Number(text));
  if (!result.success) throw new GllamError("E_BAD_INPUT", `invalid ${flag} "${text}": ${result.issues[0].message}`);
  return result.output;
}
