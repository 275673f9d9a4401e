import { parseScope } from "../memory/parse.ts";
import type { Gllam } from "../gllam/gllam.ts";
import { DEFAULT_EMBEDDER, withGllam, type GllamSettings, type OpenMode } from "../gllam/open.ts";

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
  debug: { type: "boolean", description: "Print stack traces on errors" },
} as const;

/** The --scope flag of every command that reads or writes memory. */
export const scopeArg = { type: "string", description: "Memory scope (default: default)", valueHint: "scope" } as const;

/** The --scope flag's value as every layer reads it (ScopeSchema: trimmed, checked), or an error naming --scope. */
export const scopeOf = (args: { scope?: string }): string => parseScope(args.scope, "--scope");

export type GlobalArgs = { db?: string; "embeddings-server"?: string; embedder?: string; config?: string; "busy-timeout"?: string; debug?: boolean };

/** The settings the global flags give (the environment and defaults fill the rest when memory opens). */
export const settingsOf = (args: GlobalArgs): GllamSettings => ({
  db: args.db,
  embeddingsServer: args["embeddings-server"],
  embedder: args.embedder,
  config: args.config,
  busyTimeout: args["busy-timeout"],
});

/** Runs fn with memory open as the flags say, and always closes it. */
export function withEngine<T>(args: GlobalArgs, mode: OpenMode, fn: (gllam: Gllam) => Promise<T>): Promise<T> {
  return withGllam(settingsOf(args), mode, fn);
}
