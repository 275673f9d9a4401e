import { GllamError } from "../engine/errors.ts";
import type { PddlAction } from "../memory/types.ts";
import { OBJECT_TYPE, type ActionSchema, type Atom, type Domain, type Literal, type Problem, type TypedName } from "./pddl-types.ts";
import { readSExpr, type SExpr } from "./sexpr.ts";

/** A procedure that declares an action: the planner chains these to reach a goal. */
export type RecipeAction = { taskType: string; recipe: string; action: PddlAction };

const variable = (name: string) => (name.startsWith("?") ? name : `?${name}`).toLowerCase();

/** `(pred a ?x)`, `(not (pred ...))`, or the same without the outer parentheses. */
export function parseLiteralText(text: string, where: string): Literal {
  const trimmed = text.trim();
  const list = readSExpr(trimmed.startsWith("(") ? trimmed : `(${trimmed})`, where);
  const negated = list.items[0]?.kind === "atom" && list.items[0].text === "not";
  const atomExpr: SExpr | undefined = negated ? list.items[1] : list;
  if (atomExpr?.kind !== "list" || (negated && list.items.length !== 2)) throw new GllamError("E_BAD_INPUT", `${where}: "${text}" is not a literal like (deployed caddy) or (not (running ?s))`);
  const names = atomExpr.items.map((item) => {
    if (item.kind !== "atom") throw new GllamError("E_BAD_INPUT", `${where}: "${text}": nested lists are not allowed in a literal`);
    return item.text;
  });
  if (names.length === 0 || names[0]!.startsWith("?") || names[0] === "=" || names[0] === "not") throw new GllamError("E_BAD_INPUT", `${where}: "${text}" has no predicate name`);
  return { predicate: names[0]!, args: names.slice(1), negated };
}

/** A recipe's declared action as an action schema; every variable must be a parameter. */
export function parseRecipeAction(action: PddlAction, where: string): ActionSchema {
  const parameters: TypedName[] = action.parameters.map((p) => ({ name: variable(p.name), types: [p.type.toLowerCase()] }));
  const known = new Set(parameters.map((p) => p.name));
  const literals = (texts: string[], what: string) =>
    texts.map((text, i) => {
      const literal = parseLiteralText(text, `${where} ${what}[${i}]`);
      for (const arg of literal.args) if (arg.startsWith("?") && !known.has(arg)) throw new GllamError("E_BAD_INPUT", `${where} ${what}[${i}]: ${arg} is not a parameter of ${action.name}`);
      return literal;
    });
  return { name: action.name.toLowerCase(), parameters, precondition: literals(action.preconditions, "preconditions"), effect: literals(action.effects, "effects") };
}

export type RecipeTask = { domain: Domain; problem: Problem; taskTypeOf: Map<string, string> };

/**
 * Compiles recipes with actions into one domain, and a goal (ground literals) from an initial state
 * into a problem: the plan is then a chain of recipes. Predicates and constants are collected from
 * the actions; objects from init and goal, typed by `objects` or by the parameters they fill.
 */
export function compileRecipeTask(recipes: RecipeAction[], goal: string[], init: string[] = [], objects: Record<string, string> = {}): RecipeTask {
  if (goal.length === 0) throw new GllamError("E_BAD_INPUT", "the goal names no fact");
  const actions: ActionSchema[] = [];
  const taskTypeOf = new Map<string, string>();
  for (const recipe of recipes) {
    const action = parseRecipeAction(recipe.action, `procedure ${recipe.taskType}: action`);
    const other = taskTypeOf.get(action.name);
    if (other) throw new GllamError("E_BAD_INPUT", `procedures ${other} and ${recipe.taskType} both declare the action ${action.name}`);
    taskTypeOf.set(action.name, recipe.taskType);
    actions.push(action);
  }
  const goalLiterals = goal.map((g, i) => parseLiteralText(g, `goal[${i}]`));
  const initAtoms: Atom[] = init.map((f, i) => {
    const literal = parseLiteralText(f, `init[${i}]`);
    if (literal.negated) throw new GllamError("E_BAD_INPUT", `init[${i}]: the initial state lists true facts only`);
    return { predicate: literal.predicate, args: literal.args };
  });
  // Predicates and their arity, and which parameter type fills each argument position.
  const arity = new Map<string, { n: number; where: string }>();
  const positionTypes = new Map<string, string>();
  const note = (atom: Atom, where: string, types?: Map<string, string>) => {
    const known = arity.get(atom.predicate);
    if (known && known.n !== atom.args.length) throw new GllamError("E_BAD_INPUT", `${where}: ${atom.predicate} takes ${known.n} argument(s) in ${known.where}, ${atom.args.length} here`);
    if (!known) arity.set(atom.predicate, { n: atom.args.length, where });
    atom.args.forEach((arg, i) => {
      const type = types?.get(arg);
      if (type && type !== OBJECT_TYPE) positionTypes.set(`${atom.predicate}/${i}`, type);
    });
  };
  for (const action of actions) {
    const types = new Map(action.parameters.map((p) => [p.name, p.types[0]!]));
    for (const l of [...action.precondition, ...action.effect]) note(l, `action ${action.name}`, types);
  }
  for (const atom of [...initAtoms, ...goalLiterals]) note(atom, "the goal or initial state");

  const constants = new Set<string>();
  for (const action of actions) for (const l of [...action.precondition, ...action.effect]) for (const a of l.args) if (!a.startsWith("?")) constants.add(a);
  const objectType = new Map(Object.entries(objects).map(([name, type]) => [name.toLowerCase(), type.toLowerCase()]));
  for (const atom of [...initAtoms, ...goalLiterals]) {
    atom.args.forEach((arg, i) => {
      if (!objectType.has(arg)) objectType.set(arg, positionTypes.get(`${atom.predicate}/${i}`) ?? OBJECT_TYPE);
    });
  }
  const typeNames = new Set([...actions.flatMap((a) => a.parameters.map((p) => p.types[0]!)), ...objectType.values()]);
  typeNames.delete(OBJECT_TYPE);
  const domain: Domain = {
    name: "gllam-recipes",
    requirements: [":strips", ":typing", ":negative-preconditions"],
    types: [...typeNames].sort().map((name) => ({ name, parent: OBJECT_TYPE })),
    constants: [...constants].sort().map((name) => ({ name, types: [objectType.get(name) ?? OBJECT_TYPE] })),
    predicates: [...arity].map(([name, { n }]) => ({ name, parameters: Array.from({ length: n }, (_, i) => ({ name: `?a${i}`, types: [OBJECT_TYPE] })) })),
    functions: [],
    actions,
  };
  const problem: Problem = {
    name: "recipe-goal",
    domain: domain.name,
    requirements: [],
    objects: [...objectType].filter(([name]) => !constants.has(name)).map(([name, type]) => ({ name, types: [type] })),
    init: initAtoms,
    numericInit: [],
    goal: goalLiterals,
    minimizeTotalCost: false,
  };
  return { domain, problem, taskTypeOf };
}
