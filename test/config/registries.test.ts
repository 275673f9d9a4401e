import { expect, test } from "bun:test";
import {
  determineDocumentIngestionStrategy,
  getIngestionSteeringPrompt,
  registerCustomDocumentTypeRule,
  registerRepositoryContextDirective,
} from "../../src/config/registries.ts";
import { defaultAgenticMemoryConfig, mergeAgenticMemoryConfig } from "../../src/config/prompts.ts";

const config = defaultAgenticMemoryConfig();

test("getIngestionSteeringPrompt: the type's own prompt, its directive's, else the global fallback", () => {
  expect(getIngestionSteeringPrompt(config, "Jira")).toEqual({ prompt: config.ingestion_steering_prompts.jira!, from: "ingestion_steering_prompts.jira" });
  expect(getIngestionSteeringPrompt(config, "conversation")).toEqual({ prompt: config.ingestion_steering_prompt, from: "ingestion_steering_prompt" });
  expect(getIngestionSteeringPrompt(config, undefined).from).toBe("ingestion_steering_prompt");
  const withDirective = registerRepositoryContextDirective(config, { repository_type: "SharePoint", extraction_prompt: "Extract site URL.", context_template: "Doc: {{doc_name}}" });
  expect(getIngestionSteeringPrompt(withDirective, "sharepoint")).toEqual({ prompt: "Extract site URL.", from: "repository_context_directives.sharepoint" });
  // The shipped configuration is left as it was.
  expect(getIngestionSteeringPrompt(config, "sharepoint").from).toBe("ingestion_steering_prompt");
});

test("determineDocumentIngestionStrategy: the directive, else the custom rule's strategy, else every flag off", () => {
  expect(determineDocumentIngestionStrategy(config, "confluence").track_revision_history).toBe(true);
  expect(determineDocumentIngestionStrategy(config, "slack")).toMatchObject({ track_revision_history: false, compact_author_epochs: false });
  const registered = registerCustomDocumentTypeRule(config, { type_name: "Wiki Page", baseline_trust_weight: 650, ingestion_strategy: { track_comment_history: true } });
  expect(determineDocumentIngestionStrategy(registered, "wiki_page").track_comment_history).toBe(true);
  expect(registered.custom_document_type_rules.wiki_page!.baseline_trust_weight).toBe(650);
  expect(() => registerCustomDocumentTypeRule(config, { type_name: "x", baseline_trust_weight: 5000 })).toThrow(/baseline_trust_weight/);
});

test("the config file's llm entry is validated with the rest", () => {
  expect(mergeAgenticMemoryConfig({ llm: { strong: { server: "http://127.0.0.1:8080" }, concurrency_per_server: 2 } }).llm).toMatchObject({ concurrency_per_server: 2, response_format: "auto" });
  expect(() => mergeAgenticMemoryConfig({ llm: { response_format: "xml" } }, "my.json")).toThrow(/^my\.json: llm\.response_format/);
});
