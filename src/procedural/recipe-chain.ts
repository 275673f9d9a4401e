import type { Store } from "../engine/store.ts";
import { formatStep } from "../planning/pddl-types.ts";
import { persistPddlTask, type PersistedTask } from "../planning/persist.ts";
import { solveNative, type NativePlannerOptions, type PlanResult } from "../planning/planner.ts";
import { compileRecipeTask } from "../planning/recipe-domain.ts";
import { listActionProcedures } from "./procedures.ts";

export type RecipeChainOptions = NativePlannerOptions & {
  /** Facts true now, like "(installed caddy)"; default none. */
  init?: string[];
  /** Object types, when the parameters they fill do not say. */
  objects?: Record<string, string>;
  scope?: string;
  /** Only recipes under this taxonomy path. */
  taxonomyPrefix?: string;
  /** Folder for the generated domain and problem; none (or null) writes nothing. */
  pddlDomainsDir?: string | null;
};

export type RecipeStep = { step: string; taskType: string; recipe: string };

export type RecipeChain = { status: PlanResult["status"]; reason: string; steps: RecipeStep[]; files?: PersistedTask; planner: string };

/**
 * "How do I get to <goal>": the procedures that declare actions become one PDDL domain, the goal a
 * problem; the validated plan is the chain of recipes to follow, in order.
 */
export function planRecipeChain(store: Store, goal: string[], options: RecipeChainOptions = {}): RecipeChain {
  const recipes = listActionProcedures(store, options.scope, options.taxonomyPrefix).map((p) => ({ taskType: p.taskType, recipe: p.recipe, action: p.pddlAction! }));
  const { domain, problem, taskTypeOf } = compileRecipeTask(recipes, goal, options.init, options.objects);
  const files = options.pddlDomainsDir ? persistPddlTask(options.pddlDomainsDir, `recipes ${goal.join(" ")}`, domain, problem) : undefined;
  const result = solveNative(domain, problem, options);
  const byTaskType = new Map(recipes.map((r) => [r.taskType, r.recipe]));
  const steps = result.plan.map((step) => {
    const taskType = taskTypeOf.get(step.action)!;
    return { step: formatStep(step), taskType, recipe: byTaskType.get(taskType)! };
  });
  return { status: result.status, reason: result.reason, steps, planner: result.planner, ...(files ? { files } : {}) };
}
