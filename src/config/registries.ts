/**
 * The seed's config registries: the steering prompt and ingestion strategy of a content type, and
 * registering custom document types and repository directives at run time (library API; the
 * config file's tables hold the same entries). Pure: a registration returns a new validated config.
 */
import * as v from "valibot";
import { normalizeKey, ownEntry } from "./keys.ts";
import { parseAgenticMemoryConfig, type AgenticMemoryConfig } from "./prompts.ts";

export type IngestionStrategy = AgenticMemoryConfig["ingestion_steering_directives"][string];
export type CustomDocumentTypeRule = AgenticMemoryConfig["custom_document_type_rules"][string];
export type RepositoryContextDirective = AgenticMemoryConfig["repository_context_directives"][string];

const NO_STRATEGY: IngestionStrategy = {
  track_revision_history: false,
  track_comment_history: false,
  track_status_transitions: false,
  track_branch_merges: false,
  compact_author_epochs: false,
};

/** A content type's key as the tables hold it, through document_type_aliases ("Merged Pull Request" -> merged_pr). */
function contentKey(config: AgenticMemoryConfig, contentType: string): string {
  const key = normalizeKey(contentType);
  return ownEntry(config.document_type_aliases, key) ?? key;
}

/**
 * Seed: GetIngestionSteeringPrompt. The content type's own prompt, else its repository directive's
 * extraction prompt, else the global fallback (ingestion_steering_prompt).
 */
export function getIngestionSteeringPrompt(config: AgenticMemoryConfig, contentType: string | undefined): { prompt: string; from: string } {
  if (contentType) {
    const key = contentKey(config, contentType);
    const own = ownEntry(config.ingestion_steering_prompts, key);
    if (own) return { prompt: own, from: `ingestion_steering_prompts.${key}` };
    const directive = ownEntry(config.repository_context_directives, key);
    if (directive?.extraction_prompt) return { prompt: directive.extraction_prompt, from: `repository_context_directives.${key}` };
  }
  return { prompt: config.ingestion_steering_prompt, from: "ingestion_steering_prompt" };
}

/** Seed: DetermineDocumentIngestionStrategy. The type's directive, else its custom rule's strategy, else every flag off. */
export function determineDocumentIngestionStrategy(config: AgenticMemoryConfig, docType: string): IngestionStrategy {
  const key = contentKey(config, docType);
  const custom = Object.entries(config.custom_document_type_rules).find(([name, rule]) => name === key || normalizeKey(rule.type_name) === key)?.[1];
  return ownEntry(config.ingestion_steering_directives, key) ?? custom?.ingestion_strategy ?? NO_STRATEGY;
}

/** Seed: RegisterCustomDocumentTypeRule. The config with the rule added (or replaced), validated. */
export function registerCustomDocumentTypeRule(config: AgenticMemoryConfig, rule: v.InferInput<typeof CustomRuleInput>): AgenticMemoryConfig {
  const checked = v.parse(CustomRuleInput, rule);
  return parseAgenticMemoryConfig(
    { ...config, custom_document_type_rules: { ...config.custom_document_type_rules, [normalizeKey(checked.type_name)]: checked } },
    `custom document type rule ${checked.type_name}`,
  );
}

/** Seed: RegisterRepositoryContextDirective. The config with the directive added (or replaced), validated. */
export function registerRepositoryContextDirective(config: AgenticMemoryConfig, directive: RepositoryContextDirective): AgenticMemoryConfig {
  return parseAgenticMemoryConfig(
    { ...config, repository_context_directives: { ...config.repository_context_directives, [normalizeKey(directive.repository_type)]: directive } },
    `repository context directive ${directive.repository_type}`,
  );
}

const CustomRuleInput = v.object({
  type_name: v.pipe(v.string(), v.trim(), v.nonEmpty()),
  baseline_trust_weight: v.number(),
  ingestion_strategy: v.optional(v.record(v.string(), v.union([v.boolean(), v.number()]))),
});
