/**
 * What needs no memory file: solving PDDL files and explaining a trust weight. Faces offer them
 * beside the facade (`gllam plan`, `gllam trust explain` run without a database).
 */
import { readEnv } from "../config/env.ts";
import { defaultAgenticMemoryConfig, loadSystemPromptsConfig } from "../config/prompts.ts";
import type { PlanResult } from "../planning/planner.ts";
import { planFiles, planTexts, type PddlTexts, type PlanFilesOptions } from "../planning/solve.ts";
import { computeTrustWeight, explainTrust, type TrustBreakdown, type TrustInput } from "../semantic/trust.ts";

/** Solves a domain and a problem file; errors name file:line:col; the plan is validated by simulation. */
export function planPddlFiles(domainFile: string, problemFile: string, options?: PlanFilesOptions): Promise<PlanResult> {
  return planFiles(domainFile, problemFile, options);
}

/** Solves a domain and a problem given as text (errors name the text's line:col); validated by simulation. */
export function planPddlTexts(task: PddlTexts, options?: PlanFilesOptions): Promise<PlanResult> {
  return planTexts(task, options);
}

/** The composite trust weight with each part, under a config file (default $GLLAM_CONFIG, else the shipped one), and its lines of explanation. */
export async function explainTrustWeight(input: TrustInput, configPath?: string): Promise<{ breakdown: TrustBreakdown; lines: string[] }> {
  const path = configPath ?? readEnv().GLLAM_CONFIG;
  const config = path ? await loadSystemPromptsConfig(path) : defaultAgenticMemoryConfig();
  const breakdown = computeTrustWeight(input, config);
  return { breakdown, lines: explainTrust(breakdown) };
}

/** Where GLLAM keeps files across runs (the user's cache folder first): the REPL keeps its history there. */
export { cacheDirs } from "../engine/cache-files.ts";
