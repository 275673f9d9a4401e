/** Every operation the faces offer (MCP tools, HTTP routes, CLI commands), in the order they are listed. */
import type { Operation } from "./operation.ts";
import { backup, doctor } from "./operations/admin.ts";
import { ask, context } from "./operations/context.ts";
import { extract, importFactsOperation } from "./operations/extraction.ts";
import { addFact, factHistory, facts, forget } from "./operations/facts.ts";
import { recall, remember } from "./operations/memory.ts";
import { plan, stats } from "./operations/tools.ts";

export { addFact, ask, backup, context, doctor, extract, factHistory, facts, forget, importFactsOperation, plan, recall, remember, stats };

export const OPERATIONS: readonly Operation[] = [remember, recall, context, ask, addFact, facts, factHistory, forget, extract, importFactsOperation, plan, stats, backup, doctor] as unknown as Operation[];
