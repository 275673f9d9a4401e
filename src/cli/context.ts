import { createHttpEmbedder } from "../embed/http.ts";
import { createLocalModelEmbedder } from "../embed/local-model.ts";
import type { Embedder } from "../embed/embedder.ts";
import { readEnv } from "../config/env.ts";
import { loadSystemPromptsConfig } from "../config/prompts.ts";
import { Gllam } from "../engine/gllam.ts";
import type { EmbeddingModelCheck } from "../semantic/node-vectors.ts";

/** Flags every command takes (seed names: --db, --embeddings-server). */
export const globalArgs = {
  db: { type: "string", description: "SQLite file (default: $DATABASE_PATH, else ./gllam.db)", valueHint: "path" },
  "embeddings-server": {
    type: "string",
    description: "Embeddings server (llama.cpp or OpenAI-compatible; default: $EMBEDDINGS_SERVER, else the bundled model)",
    valueHint: "url",
  },
  config: { type: "string", description: "Agentic memory config JSON (default: $GLLAM_CONFIG, else the shipped one)", valueHint: "path" },
  debug: { type: "boolean", description: "Print stack traces on errors" },
} as const;

/** The --scope flag of every command that reads or writes memory. */
export const scopeArg = { type: "string", description: "Memory scope (default: default)", valueHint: "scope" } as const;

export type GlobalArgs = { db?: string; "embeddings-server"?: string; config?: string; debug?: boolean };

/** The embedder the flags and environment name: an HTTP server, else the bundled model. */
export function chooseEmbedder(args: GlobalArgs, env = readEnv()): Embedder {
  const url = args["embeddings-server"] ?? env.EMBEDDINGS_SERVER;
  return url ? createHttpEmbedder({ url, model: env.EMBEDDINGS_MODEL, apiKey: env.EMBEDDINGS_API_KEY }) : createLocalModelEmbedder();
}

export type EngineMode = { readOnly?: boolean; create?: boolean; /** `gllam reembed` is the cure: it does not warn. */ quietDrift?: boolean };

/** The one line a command prints (on stderr) when the stored vectors come from another model. */
export const formatDriftWarning = (check: EmbeddingModelCheck) =>
  `gllam: warning: stored vectors come from ${check.previousModel}, the active embedder is ${check.activeModel}; vector search is refused until \`gllam reembed\` re-embeds them`;

/**
 * Opens the engine the way every command does: flags over environment over defaults. A drifted
 * embedder is not refused here (it is warned about): each operation that compares vectors refuses
 * it with E_EMBEDDING_DRIFT.
 */
export async function openEngine(args: GlobalArgs, mode: EngineMode): Promise<Gllam> {
  const env = readEnv();
  const configPath = args.config ?? env.GLLAM_CONFIG;
  const { quietDrift, ...storeMode } = mode;
  return Gllam.open(args.db ?? env.DATABASE_PATH ?? "gllam.db", {
    ...storeMode,
    embedder: chooseEmbedder(args, env),
    config: configPath ? await loadSystemPromptsConfig(configPath) : undefined,
    onEmbeddingDrift: quietDrift ? undefined : (check) => console.error(formatDriftWarning(check)),
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
