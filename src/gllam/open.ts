/**
 * Opening memory from settings, as every face does (CLI flags, the MCP and HTTP servers' flags,
 * the REPL): each setting given, else its environment variable, else the default. The embedding
 * tiers are chosen here once, so every face embeds the same way.
 */
import * as v from "valibot";
import { BusyTimeoutSecondsSchema, EmbedderNameSchema, readEnv, type EmbedderName, type GllamEnv } from "../config/env.ts";
import { loadSystemPromptsConfig } from "../config/prompts.ts";
import type { Embedder } from "../embed/embedder.ts";
import { createHttpEmbedder } from "../embed/http.ts";
import { createLocalModelEmbedder } from "../embed/local-model.ts";
import { ensureStaticTable, loadStaticEmbedder, locateStaticTable } from "../embed/static/bundled-table.ts";
import type { StaticEmbedder } from "../embed/static/static-embedder.ts";
import { GllamError } from "../engine/errors.ts";
import { parseInput } from "../memory/parse.ts";
import type { EmbeddingModelCheck } from "../semantic/node-vectors.ts";
import { DEFAULT_BUSY_TIMEOUT_MS } from "../engine/store.ts";
import { Gllam } from "./gllam.ts";

/** What the embedder setting means when nobody names one: the tiers that measured best (README, Embeddings). */
export const DEFAULT_EMBEDDER: EmbedderName = "model";

export const GllamSettingsSchema = v.object({
  /** The SQLite file ($DATABASE_PATH, else ./gllam.db; `:memory:` for a database in memory). */
  db: v.optional(v.string()),
  /** An embeddings server ($EMBEDDINGS_SERVER, else the bundled model). */
  embeddingsServer: v.optional(v.string()),
  /** static, model or http ($GLLAM_EMBEDDER, else http when a server is set, else model). */
  embedder: v.optional(v.pipe(v.string(), v.toLowerCase(), EmbedderNameSchema)),
  /** The agentic memory config JSON ($GLLAM_CONFIG, else the shipped one). */
  config: v.optional(v.string()),
  /** Seconds a write waits while another process writes ($GLLAM_BUSY_TIMEOUT, else 60). */
  busyTimeout: v.optional(v.union([v.number(), v.string()])),
  /** The LLM server of both roles (else $STRONG_TEXT_SERVER / $FAST_TEXT_SERVER, else the config's `llm`). */
  llmServer: v.optional(v.string()),
  /** The model of both roles (else $STRONG_LLM_MODEL / $FAST_LLM_MODEL, else the config's `llm`). */
  llmModel: v.optional(v.string()),
});
export type GllamSettings = v.InferInput<typeof GllamSettingsSchema>;

/**
 * How a face opens the file: only reading (never creates anything), or writing, and then whether
 * it may create the database. Whatever changes existing memory (forget, fact invalidate, ...) must
 * not create a file at a mistyped path.
 */
export type OpenMode = ({ readOnly: true } | { create: boolean }) & {
  /** Say nothing about drift (`gllam reembed` is the cure). */
  quietDrift?: boolean;
  /** Writes static vectors: build the table first, saying so (others never wait for it). */
  staticTable?: boolean;
};

/** What opening says to the person (on stderr for the CLI): drift warnings, the static table being built. */
export type Notices = {
  warn: (line: string) => void;
  progress?: (done: number, total: number) => void;
  /** A slow step the person waits for (the REPL shows a spinner; the one-shot CLI says nothing). */
  step?: <T>(label: string, work: () => Promise<T>) => Promise<T>;
};

export const stderrNotices: Notices = {
  warn: (line) => process.stderr.write(`${line}\n`),
  progress: process.stderr.isTTY ? (done, total) => process.stderr.write(`\r${done}/${total} rows\x1b[K${done === total ? "\n" : ""}`) : undefined,
};

export type ChosenTiers = { name: EmbedderName; embedder: Embedder; staticEmbedder?: StaticEmbedder };

export { loadStaticEmbedder };

/** The static table's file; a source checkout distils it on first use, and says so (the binary carries it). */
export async function ensureStaticTableNoisily(notices: Notices = stderrNotices): Promise<string> {
  const found = locateStaticTable();
  if (found) return found;
  notices.warn("gllam: distilling the static embedding table from the bundled model (once, a few minutes; `bun run build` puts it in the binary)");
  return ensureStaticTable(notices.progress);
}

/**
 * The embedding tiers the settings and environment name. The static tier is always on; `static`
 * makes it the only one (nodes too get static vectors), `model` and `http` add a model tier.
 */
export async function chooseTiers(settings: GllamSettings, env: GllamEnv = readEnv(), notices?: Notices): Promise<ChosenTiers> {
  const parsed = parseInput(GllamSettingsSchema, settings, "settings");
  const url = parsed.embeddingsServer ?? env.EMBEDDINGS_SERVER;
  const name = parsed.embedder ?? env.GLLAM_EMBEDDER ?? (url ? "http" : DEFAULT_EMBEDDER);
  switch (name) {
    case "static": {
      const embedder = loadStaticEmbedder(await ensureStaticTableNoisily(notices));
      return { name, embedder, staticEmbedder: embedder };
    }
    case "model":
      return { name, embedder: createLocalModelEmbedder() };
    case "http":
      if (!url) throw new GllamError("E_CONFIG", "the http embedder needs an embeddings server (--embeddings-server URL or $EMBEDDINGS_SERVER)");
      return { name, embedder: createHttpEmbedder({ url, model: env.EMBEDDINGS_MODEL, apiKey: env.EMBEDDINGS_API_KEY }) };
  }
}

/** The one line said when the stored vectors come from another model. */
export const formatDriftWarning = (check: EmbeddingModelCheck) =>
  `gllam: warning: stored vectors come from ${check.previousModel}, the active embedder is ${check.activeModel}; vector search is refused until \`gllam reembed\` re-embeds them`;

/** The database file the settings name: the setting, else $DATABASE_PATH, else ./gllam.db. */
export const databasePath = (settings: GllamSettings, env: GllamEnv = readEnv()): string => settings.db ?? env.DATABASE_PATH ?? "gllam.db";

/**
 * Opens memory the way every face does. A drifted embedder is not refused here (it is warned
 * about): each operation that compares vectors refuses it with E_EMBEDDING_DRIFT.
 */
export async function openGllam(settings: GllamSettings, mode: OpenMode, notices: Notices = stderrNotices): Promise<Gllam> {
  return openGllamWith(await chooseTiers(settings, readEnv(), notices), settings, mode, notices);
}

/** openGllam with tiers already chosen (a session keeps its embedders across the memories it opens). */
export async function openGllamWith(tiers: ChosenTiers, settings: GllamSettings, mode: OpenMode, notices: Notices = stderrNotices): Promise<Gllam> {
  const env = readEnv();
  const configPath = settings.config ?? env.GLLAM_CONFIG;
  const { quietDrift, staticTable, ...storeMode } = mode;
  if (staticTable) await ensureStaticTableNoisily(notices);
  const config = configPath ? await loadSystemPromptsConfig(configPath) : undefined;
  return Gllam.open(databasePath(settings, env), {
    ...storeMode,
    checkpoints: env.GLLAM_CHECKPOINTS,
    knnCacheMiB: env.GLLAM_KNN_CACHE_MB,
    embedder: tiers.embedder,
    staticEmbedder: tiers.staticEmbedder,
    config,
    llm: { llmServer: settings.llmServer, llmModel: settings.llmModel },
    onEmbeddingDrift: quietDrift ? undefined : (check) => notices.warn(formatDriftWarning(check)),
    ...busyWait(settings, env, notices),
  });
}

/** The busy wait of the settings over the environment, said at most every 10 s while a write waits. */
function busyWait(settings: GllamSettings, env: GllamEnv, notices: Notices): { busyTimeoutMs: number | undefined; onBusyWait: () => void } {
  const given = settings.busyTimeout === undefined ? undefined : parseInput(BusyTimeoutSecondsSchema, String(settings.busyTimeout), "busy timeout (--busy-timeout)");
  const seconds = given ?? env.GLLAM_BUSY_TIMEOUT;
  const busyTimeoutMs = seconds === undefined ? undefined : Math.round(seconds * 1000);
  let said = 0;
  return {
    busyTimeoutMs,
    onBusyWait: () => {
      if (Date.now() - said < 10_000) return;
      said = Date.now();
      notices.warn(`gllam: waiting for another writer (up to ${(busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS) / 1000} s)...`);
    },
  };
}

/** Runs fn with memory open and always closes it. */
export async function withGllam<T>(settings: GllamSettings, mode: OpenMode, fn: (gllam: Gllam) => Promise<T>, notices?: Notices): Promise<T> {
  const gllam = await openGllam(settings, mode, notices);
  try {
    return await fn(gllam);
  } finally {
    gllam.close();
  }
}
