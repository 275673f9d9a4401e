import { formatAtom, OBJECT_TYPE, usesActionCosts, type Atom, type Domain, type PlanStep, type Problem } from "./pddl-types.ts";

export type PlanValidation = { valid: true; cost: number } | { valid: false; step: number; reason: string };

/**
 * Simulates a plan on the lifted task, independently of the grounder: every step must name an
 * action with well-typed objects whose preconditions hold; after the last step the goal must hold.
 * `step` is 1-based (0 for the goal).
 */
export function validatePlan(domain: Domain, problem: Problem, plan: PlanStep[]): PlanValidation {
  const parent = new Map(domain.types.map((t) => [t.name, t.parent]));
  const objectTypes = new Map<string, string[]>();
  for (const o of [...domain.constants, ...problem.objects]) if (!objectTypes.has(o.name)) objectTypes.set(o.name, o.types);
  const isA = (object: string, wanted: string[]) =>
    wanted.includes(OBJECT_TYPE) ||
    objectTypes.get(object)!.some((type) => {
      for (let at: string | undefined = type; at; at = parent.get(at)) if (wanted.includes(at)) return true;
      return false;
    });
  const actions = new Map(domain.actions.map((a) => [a.name, a]));
  const functionValues = new Map(problem.numericInit.map((f) => [formatAtom(f.atom), f.value]));
  const costs = usesActionCosts(domain);
  const state = new Set(problem.init.map(formatAtom));
  let cost = 0;
  for (const [index, step] of plan.entries()) {
    const fail = (reason: string): PlanValidation => ({ valid: false, step: index + 1, reason: `${formatAtom({ predicate: step.action, args: step.args })}: ${reason}` });
    const action = actions.get(step.action.toLowerCase());
    if (!action) return fail("no such action");
    if (step.args.length !== action.parameters.length) return fail(`takes ${action.parameters.length} argument(s)`);
    const args = step.args.map((a) => a.toLowerCase());
    const binding = new Map<string, string>();
    for (const [i, param] of action.parameters.entries()) {
      const arg = args[i]!;
      if (!objectTypes.has(arg)) return fail(`unknown object ${arg}`);
      if (!isA(arg, param.types)) return fail(`${arg} is not of type ${param.types.join(" or ")}`);
      binding.set(param.name, arg);
    }
    const ground = (atom: Atom): Atom => ({ predicate: atom.predicate, args: atom.args.map((t) => binding.get(t) ?? t) });
    for (const literal of action.precondition) {
      const atom = ground(literal);
      const holds = atom.predicate === "=" ? atom.args[0] === atom.args[1] : state.has(formatAtom(atom));
      if (holds === literal.negated) return fail(`precondition ${literal.negated ? `(not ${formatAtom(atom)})` : formatAtom(atom)} does not hold`);
    }
    const adds = action.effect.filter((l) => !l.negated).map((l) => formatAtom(ground(l)));
    for (const l of action.effect) if (l.negated) state.delete(formatAtom(ground(l)));
    for (const fact of adds) state.add(fact);
    if (action.cost === undefined) cost += costs ? 0 : 1;
    else if (typeof action.cost === "number") cost += action.cost;
    else {
      const term = formatAtom(ground(action.cost));
      const value = functionValues.get(term);
      if (value === undefined) return fail(`no value for the cost ${term}`);
      cost += value;
    }
  }
  for (const literal of problem.goal) {
    const holds = literal.predicate === "=" ? literal.args[0] === literal.args[1] : state.has(formatAtom(literal));
    if (holds === literal.negated) return { valid: false, step: 0, reason: `goal ${literal.negated ? `(not ${formatAtom(literal)})` : formatAtom(literal)} does not hold after the plan` };
  }
  return { valid: true, cost };
}
