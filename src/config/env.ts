import * as v from "valibot";
import { GllamError } from "../engine/errors.ts";
import { KnnCacheMiBSchema } from "../engine/store.ts";
import { describeIssues } from "../memory/parse.ts";

const OptionalText = v.optional(v.pipe(v.string(), v.trim(), v.transform((s) => s || undefined)));
const OptionalUrl = v.optional(
  v.pipe(
    v.string(),
    v.trim(),
    v.transform((s) => s || undefined),
    v.check((s) => s === undefined || URL.canParse(s), "must be an http(s) URL"),
  ),
);

export const EMBEDDER_NAMES = ["static", "model", "http"] as const;
export type EmbedderName = (typeof EMBEDDER_NAMES)[number];
export const EmbedderNameSchema = v.picklist(EMBEDDER_NAMES, `must be one of ${EMBEDDER_NAMES.join(", ")}`);

/** Seconds a write waits for another process's write (`--busy-timeout`, $GLLAM_BUSY_TIMEOUT): 0 to a day. */
export const BusyTimeoutSecondsSchema = v.pipe(
  v.string(),
  v.trim(),
  v.nonEmpty("must be a number of seconds"),
  v.toNumber("must be a number of seconds"),
  v.minValue(0, "must not be negative"),
  v.maxValue(86_400, "must be at most 86400 (a day)"),
);

/** MiB of cell vectors the static KNN's worker keeps in memory ($GLLAM_KNN_CACHE_MB, StoreOptions.knnCacheMiB). */
const KnnCacheMbSchema = v.pipe(v.string(), v.trim(), v.nonEmpty("must be a number of MiB"), v.toNumber("must be a number of MiB"), KnnCacheMiBSchema);

/**
 * The environment variables of the seed specification (plus EMBEDDINGS_MODEL / EMBEDDINGS_API_KEY /
 * LLM_API_KEY / GLLAM_CONFIG / GLLAM_EMBEDDER / GLLAM_STATIC_TABLE / GLLAM_BUSY_TIMEOUT /
 * GLLAM_CHECKPOINTS / GLLAM_KNN_CACHE_MB).
 */
export const EnvSchema = v.object({
  DATABASE_PATH: OptionalText,
  EMBEDDINGS_SERVER: OptionalUrl,
  EMBEDDINGS_MODEL: OptionalText,
  EMBEDDINGS_API_KEY: OptionalText,
  STRONG_TEXT_SERVER: OptionalUrl,
  STRONG_LLM_MODEL: OptionalText,
  FAST_TEXT_SERVER: OptionalUrl,
  FAST_LLM_MODEL: OptionalText,
  OPENROUTER_API_KEY: OptionalText,
  /** Bearer key for an LLM server other than OpenRouter (OpenAI, a vLLM started with --api-key). */
  LLM_API_KEY: OptionalText,
  FAST_DOWNWARD: OptionalText,
  GLLAM_CONFIG: OptionalText,
  GLLAM_EMBEDDER: v.optional(v.pipe(v.string(), v.trim(), v.toLowerCase(), EmbedderNameSchema)),
  GLLAM_STATIC_TABLE: OptionalText,
  GLLAM_BUSY_TIMEOUT: v.optional(BusyTimeoutSecondsSchema),
  /** "external": a replicator (Litestream, sqld) checkpoints the WAL and GLLAM runs none of its own checkpoints. */
  GLLAM_CHECKPOINTS: v.optional(v.pipe(v.string(), v.trim(), v.toLowerCase(), v.picklist(["gllam", "external"], "must be gllam or external"))),
  GLLAM_KNN_CACHE_MB: v.optional(KnnCacheMbSchema),
});
export type GllamEnv = v.InferOutput<typeof EnvSchema>;

export function readEnv(env: Record<string, string | undefined> = process.env): GllamEnv {
  const parsed = v.safeParse(EnvSchema, env);
  if (!parsed.success) throw new GllamError("E_CONFIG", `invalid environment: ${describeIssues(parsed.issues)}`);
  return parsed.output;
}
