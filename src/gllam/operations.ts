/** Every operation the faces offer (MCP tools, HTTP routes, CLI commands), in the order they are listed. */
import type { Operation } from "./operation.ts";
import { backup, doctor } from "./operations/admin.ts";
import {
  contradictions,
  episodeDensity,
  forgetDryRun,
  lastSleepCycle,
  neighbourhood,
  nodeHistory,
  path,
  resolveContradiction,
  sessionEpisodes,
  sessions,
  sourceTrust,
} from "./operations/browse.ts";
import { ask, context } from "./operations/context.ts";
import { extract, importFactsOperation } from "./operations/extraction.ts";
import { addFact, factHistory, facts, forget } from "./operations/facts.ts";
import { recall, remember } from "./operations/memory.ts";
import { plan, stats } from "./operations/tools.ts";

export {
  addFact,
  ask,
  backup,
  context,
  contradictions,
  doctor,
  episodeDensity,
  extract,
  factHistory,
  facts,
  forget,
  forgetDryRun,
  importFactsOperation,
  lastSleepCycle,
  neighbourhood,
  nodeHistory,
  path,
  plan,
  recall,
  remember,
  resolveContradiction,
  sessionEpisodes,
  sessions,
  sourceTrust,
  stats,
};

export const OPERATIONS: readonly Operation[] = [
  remember,
  recall,
  context,
  ask,
  addFact,
  facts,
  factHistory,
  nodeHistory,
  neighbourhood,
  path,
  contradictions,
  resolveContradiction,
  sourceTrust,
  episodeDensity,
  sessions,
  sessionEpisodes,
  forget,
  forgetDryRun,
  extract,
  importFactsOperation,
  plan,
  stats,
  lastSleepCycle,
  backup,
  doctor,
] as unknown as Operation[];
