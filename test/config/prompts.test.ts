import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { defaultAgenticMemoryConfig, loadSystemPromptsConfig } from "../../src/config/prompts.ts";
import { expectGllamError, makeTempDir } from "../helpers.ts";

const dir = makeTempDir();

describe("agentic memory config", () => {
  test("the shipped file is valid and carries the seed's tables", () => {
    const config = defaultAgenticMemoryConfig();
    expect(config.allow_user_grilling).toBe(true);
    expect(config.document_type_trust_weights).toMatchObject({ jira_resolved: 800, draft: 200 });
    expect(config.source_reliability_heuristics).toEqual({ alice: 150, carol_lead: 200, dave_drafts: -150 });
    expect(config.mutually_exclusive_relationships).toContain("located_in");
  });

  test("a partial file fills defaults", async () => {
    const path = join(dir, "partial.json");
    writeFileSync(path, JSON.stringify({ allow_user_grilling: false }));
    expect(await loadSystemPromptsConfig(path)).toMatchObject({ allow_user_grilling: false, source_reliability_heuristics: {} });
  });

  test.each([
    ["bad-weight.json", JSON.stringify({ document_type_trust_weights: { slack: 5000 } }), /document_type_trust_weights\.slack/],
    ["bad-rule.json", JSON.stringify({ custom_document_type_rules: { notion: { type_name: "notion" } } }), /custom_document_type_rules\.notion\.baseline_trust_weight/],
    ["unknown-key.json", JSON.stringify({ allow_user_griling: true }), /allow_user_griling/],
    ["not-json.json", "{ nope", /not valid JSON/],
  ])("%s names the bad path", async (name, content, message) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    const error = await expectGllamError(loadSystemPromptsConfig(path), "E_CONFIG", message);
    expect(error.message).toContain(path);
  });

  test("a missing file names the file", async () => {
    await expectGllamError(loadSystemPromptsConfig(join(dir, "absent.json")), "E_CONFIG", /absent\.json/);
  });
});
