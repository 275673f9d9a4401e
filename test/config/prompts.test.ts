import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { defaultAgenticMemoryConfig, loadSystemPromptsConfig, mergeAgenticMemoryConfig, type AgenticMemoryConfig } from "../../src/config/prompts.ts";
import { expectGllamError, makeTempDir } from "../helpers.ts";

const dir = makeTempDir();
const writeConfig = (name: string, content: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
};

describe("agentic memory config", () => {
  test("the shipped file is valid and carries the seed's tables", () => {
    const config = defaultAgenticMemoryConfig();
    expect(config.allow_user_grilling).toBe(true);
    expect(config.document_type_trust_weights).toMatchObject({ jira_resolved: 800, draft: 200 });
    expect(config.source_reliability_heuristics).toEqual({ alice: 150, carol_lead: 200, dave_drafts: -150 });
    expect(config.mutually_exclusive_relationships).toContain("located_in");
    expect(config.role_aliases).toEqual({ system_ci_cd: "system_cicd", verified_eng: "verified_engineer" });
  });

  test("a partial file changes only what it names: the shipped tables stay", async () => {
    const config = await loadSystemPromptsConfig(writeConfig("partial.json", { allow_user_grilling: false }));
    expect(config).toEqual({ ...defaultAgenticMemoryConfig(), allow_user_grilling: false });
    expect(config.document_type_trust_weights.jira_resolved).toBe(800);
    expect(config.mutually_exclusive_relationships).toContain("has_state");
  });

  // Each override and what it must do to the shipped configuration (nothing else may change).
  const overrides: [string, unknown, (c: AgenticMemoryConfig) => void][] = [
    ["a table entry, in another spelling", { document_type_trust_weights: { Slack: 650 } }, (c) => { c.document_type_trust_weights.slack = 650; }],
    ["a new table entry", { role_reliability_heuristics: { "SRE on call": 75 } }, (c) => { c.role_reliability_heuristics.sre_on_call = 75; }],
    ["null removes a shipped entry", { source_reliability_heuristics: { dave_drafts: null } }, (c) => { delete c.source_reliability_heuristics.dave_drafts; }],
    [
      "an entry and its alias removed together",
      { role_reliability_heuristics: { verified_engineer: null }, role_aliases: { "Verified Eng": null } },
      (c) => {
        delete c.role_reliability_heuristics.verified_engineer;
        delete c.role_aliases.verified_eng;
      },
    ],
    ["a list is replaced", { mutually_exclusive_relationships: ["has_state"] }, (c) => { c.mutually_exclusive_relationships = ["has_state"]; }],
    [
      "a field inside a table entry (deep merge)",
      { custom_document_type_rules: { "Notion Workspace": { baseline_trust_weight: 650 } } },
      (c) => { c.custom_document_type_rules.notion_workspace!.baseline_trust_weight = 650; },
    ],
    ["null on a scalar brings back the built-in default", { allow_user_grilling: null }, () => {}],
    ["null on a table empties it", { source_reliability_heuristics: null, source_aliases: null }, (c) => { c.source_reliability_heuristics = {}; }],
  ];
  test.each(overrides)("%s", async (_, patch, change) => {
    const expected = structuredClone(defaultAgenticMemoryConfig());
    change(expected);
    expect(mergeAgenticMemoryConfig(patch)).toEqual(expected);
    expect(await loadSystemPromptsConfig(writeConfig("override.json", patch))).toEqual(expected);
  });

  test.each([
    ["bad-weight.json", { document_type_trust_weights: { Slack: 5000 } }, /: document_type_trust_weights\.Slack: Invalid value: Expected <=1000 but received 5000/],
    ["bad-rule.json", { custom_document_type_rules: { notion: { type_name: "notion" } } }, /: custom_document_type_rules\.notion\.baseline_trust_weight/],
    ["bad-deep-rule.json", { custom_document_type_rules: { notion_workspace: { type_name: 5 } } }, /: custom_document_type_rules\.notion_workspace\.type_name: Invalid type/],
    ["unknown-key.json", { allow_user_griling: true }, /allow_user_griling/],
    ["two-spellings.json", { document_type_trust_weights: { Slack: 500, slack: 600 } }, /document_type_trust_weights: "Slack" and "slack" name the same entry \(slack\)/],
    ["no-letters.json", { source_reliability_heuristics: { "!!": 10 } }, /source_reliability_heuristics: key "!!" has no letters or digits/],
    ["orphan-alias.json", { role_reliability_heuristics: { verified_engineer: null } }, /role_aliases\.verified_eng: verified_engineer is not in role_reliability_heuristics/],
    ["alias-typo.json", { document_type_aliases: { wiki: "confluense" } }, /document_type_aliases\.wiki: confluense is not in document_type_trust_weights or custom_document_type_rules/],
    ["not-an-object.json", [1, 2], /: expected a JSON object of settings, got an array$/],
    ["null.json", "null", /: expected a JSON object of settings, got null$/],
    ["proto.json", '{"__proto__": {"allow_user_grilling": "yes"}}', /__proto__/],
    ["not-json.json", "{ nope", /not valid JSON/],
  ])("%s names the file and the bad path", async (name, content, message) => {
    const path = writeConfig(name, content);
    const error = await expectGllamError(loadSystemPromptsConfig(path), "E_CONFIG", message);
    expect(error.message).toStartWith(path);
  });

  test("a missing file names the file", async () => {
    await expectGllamError(loadSystemPromptsConfig(join(dir, "absent.json")), "E_CONFIG", /absent\.json/);
  });
});
