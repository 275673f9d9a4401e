import { createHttpEmbedder } from "../embed/http.ts";
import { createLocalModelEmbedder } from "../embed/local-model.ts";
import type { Embedder } from "../embed/embedder.ts";
import { BusyTimeoutSecondsSchema, EmbedderNameSchema, readEnv, type EmbedderName } from "../config/env.ts";
import { ensureStaticTable, loadStaticEmbedder, locateStaticTable } from "../embed/static/bundled-table.ts";
import type { StaticEmbedder } from "../embed/static/static-embedder.ts";
import { GllamError } from "../engine/errors.ts";
import { parseInput, parseScope } from "../memory/parse.ts";
import { loadSystemPromptsConfig } from "../config/prompts.ts";
import { Gllam } from "../engine/gllam.ts";
import { DEFAULT_BUSY_TIMEOUT_MS } from "../engine/store.ts";
import type { EmbeddingModelCheck } from "../semantic/node-vectors.ts";

/** What `--embedder` means when nobody names one: the tiers that measured best (README, Embeddings). */
export const DEFAULT_EMBEDDER: EmbedderName = "model";

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

export type ChosenTiers = { name: EmbedderName; embedder: Embedder; staticEmbedder?: StaticEmbedder };

/** The static table's file; a source checkout distils it on first use, and says so (the binary carries it). */
export async function ensureStaticTableNoisily(): Promise<string> {
  const found = locateStaticTable();
  if (found) return found;
  process.stderr.write("gllam: distilling the static embedding table from the bundled model (once, a few minutes; `bun run build` puts it in the binary)\n");
  const tty = process.stderr.isTTY === true;
  const path = await ensureStaticTable((done, total) => tty && process.stderr.write(`\r${done}/${total} rows\x1b[K`));
  if (tty) process.stderr.write("\n");
  return path;
}

/**
 * The embedding tiers the flags and environment name. The static tier is always on; `static` makes
 * it the only one (nodes too get static vectors), `model` and `http` add a model tier.
 */
export async function chooseTiers(args: GlobalArgs, env = readEnv()): Promise<ChosenTiers> {
  const url = args["embeddings-server"] ?? env.EMBEDDINGS_SERVER;
  const name = args.embedder === undefined ? (env.GLLAM_EMBEDDER ?? (url ? "http" : DEFAULT_EMBEDDER)) : parseInput(EmbedderNameSchema, args.embedder.toLowerCase(), "--embedder");
  switch (name) {
    case "static": {
      const embedder = loadStaticEmbedder(await ensureStaticTableNoisily());
      return { name, embedder, staticEmbedder: embedder };
    }
    case "model":
      return { name, embedder: createLocalModelEmbedder() };
    case "http":
      if (!url) throw new GllamError("E_CONFIG", "--embedder http needs an embeddings server (--embeddings-server URL or $EMBEDDINGS_SERVER)");
      return { name, embedder: createHttpEmbedder({ url, model: env.EMBEDDINGS_MODEL, apiKey: env.EMBEDDINGS_API_KEY }) };
  }
}

/**
 * How a command opens the file: only reading (never creates anything), or writing, and then whether
 * it may create the database. Each command says which: one that changes existing memory (forget,
 * fact invalidate, ...) must not create a file at a mistyped path.
 */
export type EngineMode = ({ readOnly: true } | { create: boolean }) & {
  /** `gllam reembed` is the cure: it does not warn. */
  quietDrift?: boolean;
  /** The command writes static vectors: build the table first, saying so (others never wait for it). */
  staticTable?: boolean;
};

/** The one line a command prints (on stderr) when the stored vectors come from another model. */
export const formatDriftWarning = (check: EmbeddingModelCheck) =>
  `gllam: warning: stored vectors come from ${check.previousModel}, the active embedder is ${check.activeModel}; vector search is refused until \`gllam reembed\` re-embeds them`;

/** The busy wait of flags over environment: seconds, and one line on stderr (at most every 10 s) while waiting. */
export function busyWaitOptions(args: GlobalArgs, env = readEnv()): { busyTimeoutMs: number | undefined; onBusyWait: () => void } {
  const seconds = args["busy-timeout"] === undefined ? env.GLLAM_BUSY_TIMEOUT : parseInput(BusyTimeoutSecondsSchema, args["busy-timeout"], "--busy-timeout");
  const busyTimeoutMs = seconds === undefined ? undefined : Math.round(seconds * 1000);
  let said = 0;
  return {
    busyTimeoutMs,
    onBusyWait: () => {
      if (Date.now() - said < 10_000) return;
      said = Date.now();
      process.stderr.write(`gllam: waiting for another writer (up to ${(busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS) / 1000} s)...\n`);
    },
  };
}

/**
 * Opens the engine the way every command does: flags over environment over defaults. A drifted
 * embedder is not refused here (it is warned about): each operation that compares vectors refuses
 * it with E_EMBEDDING_DRIFT.
 */
export async function openEngine(args: GlobalArgs, mode: EngineMode): Promise<Gllam> {
  const env = readEnv();
  const configPath = args.config ?? env.GLLAM_CONFIG;
  const { quietDrift, staticTable, ...storeMode } = mode;
  const tiers = await chooseTiers(args, env);
  if (staticTable) await ensureStaticTableNoisily();
  return Gllam.open(args.db ?? env.DATABASE_PATH ?? "gllam.db", {
    ...storeMode,
    embedder: tiers.embedder,
    staticEmbedder: tiers.staticEmbedder,
    config: configPath ? await loadSystemPromptsConfig(configPath) : undefined,
    onEmbeddingDrift: quietDrift ? undefined : (check) => console.error(formatDriftWarning(check)),
    ...busyWaitOptions(args, env),
  });
}

/** Runs fn with an open engine and always closes it. */
export async function withEngine<T>(args: GlobalArgs, mode: EngineMode, fn: (gllam: Gllam) => Promise<T>): Promise<T> {
  const gllam = await openEngine(args, mode);
  try {
    return await fn(gllam);
  } finally {
    gllam.close();
  }
}
