/**
 * The agentic memory configuration (config/agentic_memory_prompts.json): prompts, steering
 * directives, document-type trust weights and source heuristics. Validated field by field so a
 * bad file names the exact path of the bad value.
 */
import * as v from "valibot";
import defaults from "../../config/agentic_memory_prompts.json";
import { describeError, GllamError } from "../engine/errors.ts";
import { describeIssues } from "../memory/parse.ts";

const Weight = v.pipe(v.number(), v.integer(), v.minValue(10), v.maxValue(1000));
const Relationship = v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_]*$/));
const Adjustment = v.pipe(v.number(), v.integer(), v.minValue(-1000), v.maxValue(1000));

const IngestionStrategySchema = v.strictObject({
  track_revision_history: v.optional(v.boolean(), false),
  track_comment_history: v.optional(v.boolean(), false),
  track_status_transitions: v.optional(v.boolean(), false),
  track_branch_merges: v.optional(v.boolean(), false),
  compact_author_epochs: v.optional(v.boolean(), false),
  max_revision_depth: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
});

export const AgenticMemoryConfigSchema = v.strictObject({
  allow_user_grilling: v.optional(v.boolean(), true),
  mutually_exclusive_relationships: v.optional(v.array(Relationship), []),
  /** Relationships along which invalidateDependentCrossCuttingLinks cascades (dependent -> dependency). */
  dependency_relationships: v.optional(v.array(Relationship), ["depends_on", "requires", "derived_from"]),
  /** Strict mode: addEdge refuses relationships outside the vocabulary (plus the engine's own). */
  strict_relationships: v.optional(v.boolean(), false),
  relationship_vocabulary: v.optional(v.array(Relationship), []),
  /** Relationships that may join a node to itself; every other self-loop is refused. */
  self_loop_relationships: v.optional(v.array(Relationship), []),
  ingestion_steering_directives: v.optional(v.record(v.string(), IngestionStrategySchema), {}),
  ingestion_steering_prompts: v.optional(v.record(v.string(), v.string()), {}),
  ingestion_steering_prompt: v.optional(v.string(), ""),
  document_type_trust_weights: v.optional(v.record(v.string(), Weight), {}),
  /** Base weight of a document type no table names (reported as unknown by `gllam trust explain`). */
  default_document_type_trust_weight: v.optional(Weight, 400),
  custom_document_type_rules: v.optional(
    v.record(
      v.string(),
      v.strictObject({ type_name: v.string(), baseline_trust_weight: Weight, ingestion_strategy: v.optional(IngestionStrategySchema) }),
    ),
    {},
  ),
  repository_context_directives: v.optional(
    v.record(v.string(), v.strictObject({ repository_type: v.string(), extraction_prompt: v.string(), context_template: v.string() })),
    {},
  ),
  trust_weight_prompt: v.optional(v.string(), ""),
  source_reliability_prompt: v.optional(v.string(), ""),
  source_reliability_heuristics: v.optional(v.record(v.string(), Adjustment), {}),
  role_reliability_heuristics: v.optional(v.record(v.string(), Adjustment), {}),
});
export type AgenticMemoryConfig = v.InferOutput<typeof AgenticMemoryConfigSchema>;

export function parseAgenticMemoryConfig(value: unknown, where: string): AgenticMemoryConfig {
  const parsed = v.safeParse(AgenticMemoryConfigSchema, value);
  if (!parsed.success) throw new GllamError("E_CONFIG", `${where}: ${describeIssues(parsed.issues)}`);
  return parsed.output;
}

/** The defaults shipped in config/ (compiled into the binary). */
export function defaultAgenticMemoryConfig(): AgenticMemoryConfig {
  return parseAgenticMemoryConfig(defaults, "config/agentic_memory_prompts.json");
}

/** Seed: loadSystemPromptsConfig. A missing file, bad JSON or a bad field is E_CONFIG naming the file. */
export async function loadSystemPromptsConfig(path: string): Promise<AgenticMemoryConfig> {
  let text: string;
  try {
    text = await Bun.file(path).text();
  } catch (error) {
    throw new GllamError("E_CONFIG", `cannot read config ${path}: ${describeError(error)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new GllamError("E_CONFIG", `${path} is not valid JSON: ${describeError(error)}`);
  }
  return parseAgenticMemoryConfig(json, path);
}
