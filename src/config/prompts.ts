/**
 * The agentic memory configuration (config/agentic_memory_prompts.json): prompts, steering
 * directives, document-type trust weights and source heuristics. A user's file is a patch over
 * the shipped one (see merge.ts), validated field by field so a bad file names the exact path of
 * the bad value.
 */
import * as v from "valibot";
import defaults from "../../config/agentic_memory_prompts.json";
import { describeError, GllamError } from "../engine/errors.ts";
import { describeIssues } from "../memory/parse.ts";
import { normalizeKey } from "./keys.ts";
import { isPlainObject, mergePatch } from "./merge.ts";

const Weight = v.pipe(v.number(), v.integer(), v.minValue(10), v.maxValue(1000));
const Relationship = v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_]*$/));
const Adjustment = v.pipe(v.number(), v.integer(), v.minValue(-1000), v.maxValue(1000));
const Key = v.pipe(
  v.string(),
  v.transform(normalizeKey),
  v.check((key) => key !== "", "has no letters or digits"),
);

/** A table: its keys are kept in normalised form (keys.ts); two spellings of one key are refused. */
const Table = <S extends v.GenericSchema>(value: S) =>
  v.pipe(
    v.record(v.string(), value),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const table: Record<string, v.InferOutput<S>> = {};
      const spelling = new Map<string, string>();
      for (const [key, entry] of Object.entries(dataset.value)) {
        const normal = normalizeKey(key);
        const clash = spelling.get(normal);
        if (!normal || clash !== undefined) {
          addIssue({ message: normal ? `"${clash}" and "${key}" name the same entry (${normal})` : `key "${key}" has no letters or digits` });
          return NEVER;
        }
        spelling.set(normal, key);
        table[normal] = entry;
      }
      return table;
    }),
  );

const IngestionStrategySchema = v.strictObject({
  track_revision_history: v.optional(v.boolean(), false),
  track_comment_history: v.optional(v.boolean(), false),
  track_status_transitions: v.optional(v.boolean(), false),
  track_branch_merges: v.optional(v.boolean(), false),
  compact_author_epochs: v.optional(v.boolean(), false),
  max_revision_depth: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
});

const LlmRoleConfigSchema = v.strictObject({ server: v.optional(v.pipe(v.string(), v.url())), model: v.optional(v.pipe(v.string(), v.nonEmpty())) });

/** The LLM layer's settings (src/llm/): servers per role (env and flags override) and how to talk to them. */
export const LlmConfigSchema = v.strictObject({
  strong: v.optional(LlmRoleConfigSchema),
  fast: v.optional(LlmRoleConfigSchema),
  /** How structured output is asked for; auto starts with json_schema and steps down when a server refuses it. */
  response_format: v.optional(v.picklist(["auto", "json_schema", "json_object", "none"]), "auto"),
  timeout_seconds: v.optional(v.pipe(v.number(), v.minValue(1), v.maxValue(3600)), 300),
  /** Retries of one request on 429, 5xx and dropped connections (exponential backoff with jitter). */
  max_retries: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(20)), 4),
  /** First backoff delay; each retry doubles it (a Retry-After header wins). */
  retry_base_ms: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(600_000)), 1000),
  /** Requests in flight per server, whatever asks for them. */
  concurrency_per_server: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(256)), 4),
  /** The model's context window in tokens: extraction chunks a session's turns to fit it. */
  context_tokens: v.optional(v.pipe(v.number(), v.integer(), v.minValue(512)), 8192),
  temperature: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(2)), 0),
  /** Extraction asks the FAST model to confirm or reject each claim's fallacy cues (auto: when an LLM is configured). */
  fallacy_judge: v.optional(v.picklist(["auto", "off"]), "auto"),
});
export type LlmConfig = v.InferOutput<typeof LlmConfigSchema>;

export const AgenticMemoryConfigSchema = v.strictObject({
  llm: v.optional(LlmConfigSchema, {}),
  allow_user_grilling: v.optional(v.boolean(), true),
  mutually_exclusive_relationships: v.optional(v.array(Relationship), []),
  /** Relationships along which invalidateDependentCrossCuttingLinks cascades (dependent -> dependency). */
  dependency_relationships: v.optional(v.array(Relationship), ["depends_on", "requires", "derived_from"]),
  /** Strict mode: addEdge refuses relationships outside the vocabulary (plus the engine's own). */
  strict_relationships: v.optional(v.boolean(), false),
  relationship_vocabulary: v.optional(v.array(Relationship), []),
  /** Relationships that may join a node to itself; every other self-loop is refused. */
  self_loop_relationships: v.optional(v.array(Relationship), []),
  ingestion_steering_directives: v.optional(Table(IngestionStrategySchema), {}),
  ingestion_steering_prompts: v.optional(Table(v.string()), {}),
  ingestion_steering_prompt: v.optional(v.string(), ""),
  document_type_trust_weights: v.optional(Table(Weight), {}),
  /** Base weight of a document type no table names (reported as unknown by `gllam trust explain`). */
  default_document_type_trust_weight: v.optional(Weight, 400),
  custom_document_type_rules: v.optional(
    Table(v.strictObject({ type_name: v.string(), baseline_trust_weight: Weight, ingestion_strategy: v.optional(IngestionStrategySchema) })),
    {},
  ),
  repository_context_directives: v.optional(
    Table(v.strictObject({ repository_type: v.string(), extraction_prompt: v.string(), context_template: v.string() })),
    {},
  ),
  trust_weight_prompt: v.optional(v.string(), ""),
  source_reliability_prompt: v.optional(v.string(), ""),
  source_reliability_heuristics: v.optional(Table(Adjustment), {}),
  role_reliability_heuristics: v.optional(Table(Adjustment), {}),
  /** Other spellings of the tables' keys (the seed's "Approved Architecture Doc", "System CI/CD"). */
  document_type_aliases: v.optional(Table(Key), {}),
  source_aliases: v.optional(Table(Key), {}),
  role_aliases: v.optional(Table(Key), {}),
});
export type AgenticMemoryConfig = v.InferOutput<typeof AgenticMemoryConfigSchema>;

/** The fields whose value is a table: a user file overrides their entries one by one. */
const TABLE_FIELDS = new Set(
  Object.entries(AgenticMemoryConfigSchema.entries)
    .filter(([, schema]) => v.unwrap(schema).type === "record")
    .map(([field]) => field),
);

/** Each alias must lead to an entry of its table (a typo, or an entry removed without its alias, is refused). */
function checkAliases(config: AgenticMemoryConfig, where: string): AgenticMemoryConfig {
  const docTypes = new Set([
    ...Object.keys(config.document_type_trust_weights),
    ...Object.entries(config.custom_document_type_rules).flatMap(([key, rule]) => [key, normalizeKey(rule.type_name)]),
  ]);
  const tables = [
    ["document_type_aliases", docTypes, "document_type_trust_weights or custom_document_type_rules"],
    ["source_aliases", new Set(Object.keys(config.source_reliability_heuristics)), "source_reliability_heuristics"],
    ["role_aliases", new Set(Object.keys(config.role_reliability_heuristics)), "role_reliability_heuristics"],
  ] as const;
  for (const [field, keys, table] of tables) {
    for (const [alias, target] of Object.entries(config[field])) {
      if (!keys.has(target)) throw new GllamError("E_CONFIG", `${where}: ${field}.${alias}: ${target} is not in ${table}`);
    }
  }
  return config;
}

/** Validates a complete configuration (the shipped one, or one a library user built). */
export function parseAgenticMemoryConfig(value: unknown, where: string): AgenticMemoryConfig {
  const parsed = v.safeParse(AgenticMemoryConfigSchema, value);
  if (!parsed.success) throw new GllamError("E_CONFIG", `${where}: ${describeIssues(parsed.issues)}`);
  return checkAliases(parsed.output, where);
}

/** The defaults shipped in config/ (compiled into the binary). */
export function defaultAgenticMemoryConfig(): AgenticMemoryConfig {
  return parseAgenticMemoryConfig(defaults, "config/agentic_memory_prompts.json");
}

/**
 * The shipped configuration with a user's overrides (a parsed JSON value) applied key by key:
 * tables entry by entry with keys in any spelling, `null` removing a shipped entry, lists replaced.
 */
export function mergeAgenticMemoryConfig(overrides: unknown, where = "config"): AgenticMemoryConfig {
  if (!isPlainObject(overrides)) throw new GllamError("E_CONFIG", `${where}: expected a JSON object of settings, got ${overrides === null ? "null" : Array.isArray(overrides) ? "an array" : `a ${typeof overrides}`}`);
  const merged = mergePatch(defaults, overrides, (path) => (path.length === 1 && TABLE_FIELDS.has(path[0]!) ? normalizeKey : undefined));
  return parseAgenticMemoryConfig(merged, where);
}

/** A config file's text: bad JSON or a bad field is E_CONFIG naming the file (`where`). */
export function parseSystemPromptsConfigText(text: string, where: string): AgenticMemoryConfig {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new GllamError("E_CONFIG", `${where} is not valid JSON: ${describeError(error)}`);
  }
  return mergeAgenticMemoryConfig(json, where);
}

/** Seed: loadSystemPromptsConfig. A missing file, bad JSON or a bad field is E_CONFIG naming the file. */
export async function loadSystemPromptsConfig(path: string): Promise<AgenticMemoryConfig> {
  let text: string;
  try {
    text = await Bun.file(path).text();
  } catch (error) {
    throw new GllamError("E_CONFIG", `cannot read config ${path}: ${describeError(error)}`);
  }
  return parseSystemPromptsConfigText(text, path);
}
