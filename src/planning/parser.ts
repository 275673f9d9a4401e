import type { ActionCost, ActionSchema, Atom, Domain, Literal, NumericFact, PredicateDeclaration, Problem, TypeDeclaration, TypedName } from "./pddl-types.ts";
import { OBJECT_TYPE, TOTAL_COST } from "./pddl-types.ts";
import { pddlError, readSExpr, type Position, type SAtom, type SExpr, type SList } from "./sexpr.ts";

export const SUPPORTED_REQUIREMENTS = [":strips", ":typing", ":negative-preconditions", ":equality", ":action-costs"];

/** Constructs outside the subset, and the requirement that would allow them, for the error message. */
const UNSUPPORTED_CONSTRUCTS: Record<string, string> = {
  or: ":disjunctive-preconditions",
  imply: ":disjunctive-preconditions",
  exists: ":existential-preconditions",
  forall: ":universal-preconditions or :conditional-effects",
  when: ":conditional-effects",
  assign: ":numeric-fluents",
  "scale-up": ":numeric-fluents",
  "scale-down": ":numeric-fluents",
  decrease: ":numeric-fluents",
  ">": ":numeric-fluents",
  "<": ":numeric-fluents",
  ">=": ":numeric-fluents",
  "<=": ":numeric-fluents",
};

/** What a name in a formula may refer to: action parameters, and the declared constants and objects. */
type Scope = { file: string; predicates: Map<string, PredicateDeclaration>; functions: Map<string, PredicateDeclaration>; variables: Set<string>; objects: Set<string> };

const isList = (e: SExpr | undefined): e is SList => e?.kind === "list";
const head = (e: SExpr | undefined): string | undefined => (isList(e) && e.items[0]?.kind === "atom" ? e.items[0].text : undefined);

function atomText(file: string, e: SExpr | undefined, what: string, near: Position): string {
  if (e?.kind !== "atom") throw pddlError(file, e?.pos ?? near, `expected ${what}`);
  return e.text;
}

function expectList(file: string, e: SExpr | undefined, what: string, near: Position): SList {
  if (!isList(e)) throw pddlError(file, e?.pos ?? near, `expected ${what}`);
  return e;
}

function checkRequirements(file: string, section: SList): string[] {
  return section.items.slice(1).map((item) => {
    const name = atomText(file, item, "a requirement such as :strips", section.pos);
    if (!SUPPORTED_REQUIREMENTS.includes(name)) {
      throw pddlError(file, item.pos, `unsupported requirement ${name} (supported: ${SUPPORTED_REQUIREMENTS.join(" ")})`);
    }
    return name;
  });
}

/** `a b - t c - (either u v) d` -> typed names; untyped names are `object`. */
function parseTypedList(file: string, items: SExpr[], declaredTypes: Set<string> | undefined, variables: boolean): TypedName[] {
  const out: TypedName[] = [];
  let pending: SAtom[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (item.kind === "atom" && item.text === "-") {
      const typeExpr = items[++i];
      if (!typeExpr) throw pddlError(file, item.pos, "expected a type after '-'");
      const types = isList(typeExpr) && head(typeExpr) === "either" ? typeExpr.items.slice(1).map((t) => atomText(file, t, "a type name", typeExpr.pos)) : [atomText(file, typeExpr, "a type name or (either ...)", item.pos)];
      if (types.length === 0) throw pddlError(file, typeExpr.pos, "(either) names no type");
      for (const type of types) if (declaredTypes && !declaredTypes.has(type)) throw pddlError(file, typeExpr.pos, `unknown type ${type}`);
      if (pending.length === 0) throw pddlError(file, item.pos, "'-' with no name before it");
      for (const name of pending) out.push({ name: name.text, types });
      pending = [];
      continue;
    }
    if (item.kind !== "atom") throw pddlError(file, item.pos, `expected a ${variables ? "variable" : "name"}, found a list`);
    if (variables !== item.text.startsWith("?")) throw pddlError(file, item.pos, variables ? `expected a variable (?x), found ${item.text}` : `expected a name, found variable ${item.text}`);
    pending.push(item);
  }
  return [...out, ...pending.map((name) => ({ name: name.text, types: [OBJECT_TYPE] }))];
}

function parseTypes(file: string, section: SList): TypeDeclaration[] {
  const declared = parseTypedList(file, section.items.slice(1), undefined, false);
  const out: TypeDeclaration[] = [];
  for (const { name, types } of declared) {
    if (types.length !== 1) throw pddlError(file, section.pos, `type ${name}: (either ...) is not allowed as a supertype`);
    if (name !== OBJECT_TYPE) out.push({ name, parent: types[0]! });
  }
  // A supertype that is used but not declared is declared implicitly, as in the IPC domains.
  const names = new Set(out.map((t) => t.name));
  for (const t of [...out]) if (t.parent !== OBJECT_TYPE && !names.has(t.parent)) (names.add(t.parent), out.push({ name: t.parent, parent: OBJECT_TYPE }));
  const parent = new Map(out.map((t) => [t.name, t.parent]));
  for (const t of out) {
    const seen = new Set<string>();
    for (let at: string | undefined = t.name; at && at !== OBJECT_TYPE; at = parent.get(at)) {
      if (seen.has(at)) throw pddlError(file, section.pos, `type hierarchy has a cycle through ${at}`);
      seen.add(at);
    }
  }
  return out;
}

function parseDeclarations(file: string, section: SList, types: Set<string>, what: string): PredicateDeclaration[] {
  const out: PredicateDeclaration[] = [];
  const items = section.items.slice(1);
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (item.kind === "atom" && item.text === "-") {
      if (what !== "function") throw pddlError(file, item.pos, `unexpected '-' in the ${what}s`);
      const type = atomText(file, items[++i], "a function type (number)", item.pos);
      if (type !== "number") throw pddlError(file, item.pos, `function type ${type}: only numeric cost functions are supported (:numeric-fluents / :object-fluents are not)`);
      continue;
    }
    const decl = expectList(file, item, `a ${what} declaration like (name ?x - type)`, section.pos);
    const name = atomText(file, decl.items[0], `a ${what} name`, decl.pos);
    if (out.some((p) => p.name === name)) throw pddlError(file, decl.pos, `${what} ${name} is declared twice`);
    out.push({ name, parameters: parseTypedList(file, decl.items.slice(1), types, true) });
  }
  return out;
}

function parseTerms(scope: Scope, list: SList, arity: number | undefined, what: string): string[] {
  const args = list.items.slice(1).map((arg) => {
    const name = atomText(scope.file, arg, "a variable or an object", list.pos);
    if (name.startsWith("?") ? !scope.variables.has(name) : !scope.objects.has(name)) {
      throw pddlError(scope.file, arg.pos, name.startsWith("?") ? `unbound variable ${name}` : `undefined object or constant ${name}`);
    }
    return name;
  });
  if (arity !== undefined && args.length !== arity) throw pddlError(scope.file, list.pos, `${what} takes ${arity} argument(s), got ${args.length}`);
  return args;
}

function parseAtom(scope: Scope, e: SExpr): Atom {
  const list = expectList(scope.file, e, "an atom like (at ?x ?y)", e.pos);
  const predicate = atomText(scope.file, list.items[0], "a predicate name", list.pos);
  if (predicate === "=") return { predicate, args: parseTerms(scope, list, 2, "=") };
  const declared = scope.predicates.get(predicate);
  if (!declared) {
    const construct = UNSUPPORTED_CONSTRUCTS[predicate];
    if (construct) throw pddlError(scope.file, list.pos, `(${predicate} ...) is not supported (it needs ${construct})`);
    throw pddlError(scope.file, list.pos, `undefined predicate ${predicate}`);
  }
  return { predicate, args: parseTerms(scope, list, declared.parameters.length, `predicate ${predicate}`) };
}

/** A conjunction of literals: `(and ...)` nests flatten, `(not atom)` negates, `()` is empty. */
function parseConjunction(scope: Scope, e: SExpr, out: Literal[] = []): Literal[] {
  const list = expectList(scope.file, e, "a condition", e.pos);
  const name = head(list);
  if (list.items.length === 0) return out;
  if (name === "and") {
    for (const part of list.items.slice(1)) parseConjunction(scope, part, out);
    return out;
  }
  if (name === "not") {
    if (list.items.length !== 2) throw pddlError(scope.file, list.pos, "(not ...) takes exactly one atom");
    const inner = list.items[1]!;
    if (isList(inner) && ["and", "not", "or"].includes(head(inner) ?? "")) throw pddlError(scope.file, inner.pos, "(not ...) of a compound formula is not supported (it needs :disjunctive-preconditions)");
    out.push({ ...parseAtom(scope, inner), negated: true });
    return out;
  }
  out.push({ ...parseAtom(scope, list), negated: false });
  return out;
}

/** An effect: add and delete literals, and at most one `(increase (total-cost) N|term)`. */
function parseEffect(scope: Scope, e: SExpr): { effect: Literal[]; cost?: ActionCost } {
  const effect: Literal[] = [];
  let cost: ActionCost | undefined;
  const visit = (part: SExpr) => {
    const list = expectList(scope.file, part, "an effect", part.pos);
    if (head(list) === "and") return list.items.slice(1).forEach(visit);
    if (head(list) === "increase") {
      const [, target, amount] = list.items;
      if (head(target) !== TOTAL_COST || list.items.length !== 3) throw pddlError(scope.file, list.pos, "only (increase (total-cost) N) is supported (:numeric-fluents is not)");
      if (cost !== undefined) throw pddlError(scope.file, list.pos, "the action increases total-cost twice");
      cost = parseCostAmount(scope, amount, list.pos);
      return;
    }
    const literals = parseConjunction(scope, list);
    if (literals.some((l) => l.predicate === "=")) throw pddlError(scope.file, list.pos, "an effect cannot assert equality");
    effect.push(...literals);
  };
  visit(e);
  return cost === undefined ? { effect } : { effect, cost };
}

function parseCostAmount(scope: Scope, amount: SExpr | undefined, near: Position): ActionCost {
  if (amount?.kind === "atom") {
    // "+ 0" keeps a written -0 from surviving as a distinct value (the writer prints it as 0).
    const value = Number(amount.text) + 0;
    if (!Number.isFinite(value) || value < 0) throw pddlError(scope.file, amount.pos, `action cost must be a non-negative number, got ${amount.text}`);
    return value;
  }
  const term = expectList(scope.file, amount, "a cost (number or function term)", near);
  const name = atomText(scope.file, term.items[0], "a function name", term.pos);
  const declared = scope.functions.get(name);
  if (!declared) throw pddlError(scope.file, term.pos, `undefined function ${name}`);
  return { predicate: name, args: parseTerms(scope, term, declared.parameters.length, `function ${name}`) };
}

function parseAction(file: string, section: SList, domain: Domain, types: Set<string>, constants: Set<string>): ActionSchema {
  const name = atomText(file, section.items[1], "an action name", section.pos);
  const fields = new Map<string, SExpr>();
  for (let i = 2; i < section.items.length; i += 2) {
    const key = atomText(file, section.items[i], ":parameters, :precondition or :effect", section.pos);
    if (![":parameters", ":precondition", ":effect"].includes(key)) throw pddlError(file, section.items[i]!.pos, `unknown action field ${key}`);
    const value = section.items[i + 1];
    if (!value) throw pddlError(file, section.items[i]!.pos, `${key} has no value`);
    fields.set(key, value);
  }
  const paramList = fields.get(":parameters");
  const parameters = paramList ? parseTypedList(file, expectList(file, paramList, "a parameter list", section.pos).items, types, true) : [];
  const scope: Scope = {
    file,
    predicates: new Map(domain.predicates.map((p) => [p.name, p])),
    functions: new Map(domain.functions.map((f) => [f.name, f])),
    variables: new Set(parameters.map((p) => p.name)),
    objects: constants,
  };
  if (scope.variables.size !== parameters.length) throw pddlError(file, paramList!.pos, `action ${name} names a parameter twice`);
  const pre = fields.get(":precondition");
  const eff = fields.get(":effect");
  const { effect, cost } = eff ? parseEffect(scope, eff) : { effect: [], cost: undefined };
  return { name, parameters, precondition: pre ? parseConjunction(scope, pre) : [], effect, ...(cost === undefined ? {} : { cost }) };
}

function sections(file: string, root: SList, kind: "domain" | "problem"): { name: string; parts: SList[] } {
  if (head(root) !== "define") throw pddlError(file, root.pos, "expected (define ...)");
  const title = expectList(file, root.items[1], `(${kind} name)`, root.pos);
  if (head(title) !== kind) throw pddlError(file, title.pos, `expected (${kind} name), found (${head(title) ?? ""} ...)`);
  const name = atomText(file, title.items[1], `a ${kind} name`, title.pos);
  const parts = root.items.slice(2).map((part) => {
    const list = expectList(file, part, "a section like (:requirements ...)", root.pos);
    if (!head(list)?.startsWith(":")) throw pddlError(file, list.pos, "expected a section like (:requirements ...)");
    return list;
  });
  return { name, parts };
}

/** Parses a domain file's text; errors name `file:line:col`. */
export function parseDomain(text: string, file = "domain.pddl"): Domain {
  const { name, parts } = sections(file, readSExpr(text, file), "domain");
  const domain: Domain = { name, requirements: [], types: [], constants: [], predicates: [], functions: [], actions: [] };
  let types = new Set([OBJECT_TYPE]);
  for (const part of parts) {
    const key = head(part)!;
    if (key === ":requirements") domain.requirements = checkRequirements(file, part);
    else if (key === ":types") {
      domain.types = parseTypes(file, part);
      types = new Set([OBJECT_TYPE, ...domain.types.map((t) => t.name)]);
    } else if (key === ":constants") domain.constants = parseTypedList(file, part.items.slice(1), types, false);
    else if (key === ":predicates") domain.predicates = parseDeclarations(file, part, types, "predicate");
    else if (key === ":functions") domain.functions = parseDeclarations(file, part, types, "function");
    else if (key === ":action") {
      const action = parseAction(file, part, domain, types, new Set(domain.constants.map((c) => c.name)));
      if (domain.actions.some((a) => a.name === action.name)) throw pddlError(file, part.pos, `action ${action.name} is defined twice`);
      domain.actions.push(action);
    } else if (key === ":derived") throw pddlError(file, part.pos, "derived predicates are not supported (:derived-predicates)");
    else if (key === ":durative-action") throw pddlError(file, part.pos, "durative actions are not supported (:durative-actions)");
    else throw pddlError(file, part.pos, `unknown domain section ${key}`);
  }
  return domain;
}

/** Parses a problem file's text against its domain (predicates, types and constants are checked). */
export function parseProblem(text: string, domain: Domain, file = "problem.pddl"): Problem {
  const { name, parts } = sections(file, readSExpr(text, file), "problem");
  const problem: Problem = { name, domain: domain.name, requirements: [], objects: [], init: [], numericInit: [], goal: [], minimizeTotalCost: false };
  const types = new Set([OBJECT_TYPE, ...domain.types.map((t) => t.name)]);
  const objects = new Set(domain.constants.map((c) => c.name));
  const scope = (): Scope => ({
    file,
    predicates: new Map(domain.predicates.map((p) => [p.name, p])),
    functions: new Map(domain.functions.map((f) => [f.name, f])),
    variables: new Set(),
    objects,
  });
  let sawGoal = false;
  for (const part of parts) {
    const key = head(part)!;
    if (key === ":domain") problem.domain = atomText(file, part.items[1], "a domain name", part.pos);
    else if (key === ":requirements") problem.requirements = checkRequirements(file, part);
    else if (key === ":objects") {
      problem.objects = parseTypedList(file, part.items.slice(1), types, false);
      for (const o of problem.objects) objects.add(o.name);
    } else if (key === ":init") {
      const s = scope();
      for (const item of part.items.slice(1)) {
        if (head(item) === "=") problem.numericInit.push(parseNumericFact(s, item as SList));
        else {
          const atom = parseAtom(s, item);
          if (atom.predicate === "=") throw pddlError(file, item.pos, "equality cannot be asserted in :init");
          problem.init.push(atom);
        }
      }
    } else if (key === ":goal") {
      const goal = part.items[1];
      if (!goal || part.items.length > 2) throw pddlError(file, part.pos, "(:goal ...) takes exactly one condition");
      problem.goal = parseConjunction(scope(), goal);
      sawGoal = true;
    } else if (key === ":metric") {
      const [, direction, what] = part.items;
      if (direction?.kind !== "atom" || direction.text !== "minimize" || head(what) !== TOTAL_COST) throw pddlError(file, part.pos, "only (:metric minimize (total-cost)) is supported");
      problem.minimizeTotalCost = true;
    } else throw pddlError(file, part.pos, `unknown problem section ${key}`);
  }
  if (!sawGoal) throw pddlError(file, undefined, "the problem has no (:goal ...)");
  return problem;
}

function parseNumericFact(scope: Scope, item: SList): NumericFact {
  const [, term, value] = item.items;
  const list = expectList(scope.file, term, "a function term like (road-length a b)", item.pos);
  const name = atomText(scope.file, list.items[0], "a function name", list.pos);
  const declared = scope.functions.get(name);
  if (!declared) throw pddlError(scope.file, list.pos, `undefined function ${name}`);
  const number = Number(atomText(scope.file, value, "a number", item.pos)) + 0;
  if (!Number.isFinite(number)) throw pddlError(scope.file, value?.pos ?? item.pos, "expected a number");
  return { atom: { predicate: name, args: parseTerms(scope, list, declared.parameters.length, `function ${name}`) }, value: number };
}
