import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { mergeAgenticMemoryConfig, parseAgenticMemoryConfig, parseSystemPromptsConfigText, type AgenticMemoryConfig } from "../../src/config/prompts.ts";
import { GllamError } from "../../src/engine/errors.ts";
import { computeTrustWeight } from "../../src/semantic/trust.ts";
import { REPO_ROOT } from "../helpers.ts";
import { mutateJson, mutateText, createRng } from "./mutate.ts";

const SEED = 20_250_611;
const INPUTS = 10_000;
const shippedText = readFileSync(join(REPO_ROOT, "config/agentic_memory_prompts.json"), "utf8");
const shipped: unknown = JSON.parse(shippedText);

/** What an accepted config must be: valid again as it stands, and every trust weight a weight. */
function checkAccepted(config: AgenticMemoryConfig): void {
  if (!Bun.deepEquals(parseAgenticMemoryConfig(config, "accepted"), config)) throw new Error("an accepted config is not valid as it stands");
  const docTypes = [...Object.keys(config.document_type_trust_weights), ...Object.keys(config.document_type_aliases), "unknown"];
  const roles = [...Object.keys(config.role_reliability_heuristics), ...Object.keys(config.role_aliases)];
  for (const docType of docTypes) {
    const { total } = computeTrustWeight({ docType, handle: Object.keys(config.source_reliability_heuristics)[0], role: roles[0] }, config);
    if (!Number.isInteger(total) || total < 10 || total > 1000) throw new Error(`trust weight ${total} for ${docType}`);
  }
}

/** Runs one input; anything thrown but a GllamError fails the test with the input that caused it. */
function attempt(label: string, input: () => string, parse: () => AgenticMemoryConfig): "accepted" | "refused" {
  try {
    checkAccepted(parse());
    return "accepted";
  } catch (error) {
    if (error instanceof GllamError && error.code === "E_CONFIG") return "refused";
    throw new Error(`${label}: ${String(error)}\ninput (first 500 characters): ${JSON.stringify(input()?.slice(0, 500))}`, { cause: error });
  }
}

test(`config loader: ${INPUTS} mutated files (seed ${SEED}) give a valid config or E_CONFIG, nothing else`, () => {
  const rng = createRng(SEED);
  const outcomes = { accepted: 0, refused: 0 };
  for (let i = 0; i < INPUTS; i++) {
    if (i % 2 === 0) {
      const text = mutateText(shippedText, rng);
      outcomes[attempt(`text input ${i}`, () => text, () => parseSystemPromptsConfigText(text, "fuzz.json"))]++;
    } else {
      const value = mutateJson(shipped, rng);
      outcomes[attempt(`JSON input ${i}`, () => JSON.stringify(value), () => mergeAgenticMemoryConfig(value, "fuzz.json"))]++;
    }
  }
  // Both outcomes must occur, or the mutations are too weak (or too strong) to test anything.
  expect(outcomes.accepted).toBeGreaterThan(INPUTS / 20);
  expect(outcomes.refused).toBeGreaterThan(INPUTS / 20);
}, 60_000);
