import { GllamError } from "../engine/errors.ts";
import { checkDeadline, PlanningLimit, type Limits } from "./limits.ts";
import { formatAtom, OBJECT_TYPE, usesActionCosts, type Atom, type Domain, type Literal, type Problem } from "./pddl-types.ts";

/** A ground action over fluent fact ids (static facts are compiled away). */
export type GroundAction = {
  name: string;
  schema: string;
  args: string[];
  pre: Int32Array;
  preNeg: Int32Array;
  add: Int32Array;
  del: Int32Array;
  cost: number;
};

/** The grounded task the searches run on: states are bitsets over `facts`. */
export type GroundTask = {
  facts: string[];
  /** Fact ids true in the initial state. */
  init: Int32Array;
  goal: Int32Array;
  goalNeg: Int32Array;
  actions: GroundAction[];
  /** Set when grounding already shows the goal cannot be reached (a goal fact is unreachable even relaxed). */
  unreachableGoal?: string;
  unitCost: boolean;
};

/** A schema term: a parameter index (>= 0) or a constant, encoded as -(object id + 1). */
type CompiledAtom = { pred: number; terms: Int32Array };
/** A function-valued action cost, looked up in the problem's numeric :init. */
type CostTerm = { fn: string; terms: Int32Array };
type CompiledSchema = {
  name: string;
  params: number;
  allowed: Uint8Array[];
  pos: CompiledAtom[];
  neg: CompiledAtom[];
  eq: { a: number; b: number; negated: boolean }[];
  add: CompiledAtom[];
  del: CompiledAtom[];
  cost: number | CostTerm;
  /** For each positive precondition used as the trigger: the order to join the others in. */
  orders: number[][];
};

/**
 * Grounds a parsed task with relaxed reachability: starting from the initial facts, only actions
 * whose positive preconditions can all become true (ignoring deletes) are instantiated, joining
 * preconditions against the facts reached so far (semi-naive: each new fact triggers only the
 * bindings it takes part in).
 */
export function groundTask(domain: Domain, problem: Problem, limits: Limits): GroundTask {
  const objectNames: string[] = [];
  const objectIds = new Map<string, number>();
  const objectTypes: string[][] = [];
  for (const o of [...domain.constants, ...problem.objects]) {
    if (objectIds.has(o.name)) continue;
    objectIds.set(o.name, objectNames.length);
    objectNames.push(o.name);
    objectTypes.push(o.types);
  }
  const members = typeMembers(domain, objectTypes);
  const predIds = new Map(domain.predicates.map((p, i) => [p.name, i]));
  const fluent = new Uint8Array(domain.predicates.length);
  for (const action of domain.actions) for (const l of action.effect) fluent[predIds.get(l.predicate)!] = 1;

  const compileTerm = (term: string, params: Map<string, number>) => (term.startsWith("?") ? params.get(term)! : -(objectIds.get(term)! + 1));
  const compileAtom = (atom: Atom, params: Map<string, number>): CompiledAtom => ({
    pred: predIds.get(atom.predicate)!,
    terms: Int32Array.from(atom.args, (t) => compileTerm(t, params)),
  });
  const usesCosts = usesActionCosts(domain);
  const functionValues = new Map(problem.numericInit.map((f) => [formatAtom(f.atom), f.value]));
  const schemas: CompiledSchema[] = domain.actions.map((action) => {
    const params = new Map(action.parameters.map((p, i) => [p.name, i]));
    const isPred = (l: Literal) => l.predicate !== "=";
    const pos = action.precondition.filter((l) => isPred(l) && !l.negated).map((l) => compileAtom(l, params));
    const cost: number | CostTerm =
      action.cost === undefined ? (usesCosts ? 0 : 1)
      : typeof action.cost === "number" ? action.cost
      : { fn: action.cost.predicate, terms: Int32Array.from(action.cost.args, (t) => compileTerm(t, params)) };
    return {
      name: action.name,
      params: action.parameters.length,
      allowed: action.parameters.map((p) => unionOf(p.types.map((t) => members.get(t)!), objectNames.length)),
      pos,
      neg: action.precondition.filter((l) => isPred(l) && l.negated).map((l) => compileAtom(l, params)),
      eq: action.precondition.filter((l) => !isPred(l)).map((l) => ({ a: compileTerm(l.args[0]!, params), b: compileTerm(l.args[1]!, params), negated: l.negated })),
      add: action.effect.filter((l) => !l.negated).map((l) => compileAtom(l, params)),
      del: action.effect.filter((l) => l.negated).map((l) => compileAtom(l, params)),
      cost,
      orders: pos.map((_, trigger) => joinOrder(pos, trigger, action.parameters.length)),
    };
  });

  // ---- facts
  const factIds = new Map<string, number>();
  const factPred: number[] = [];
  const factArgs: Int32Array[] = [];
  const factKey = (pred: number, args: ArrayLike<number>) => `${pred}|${Array.prototype.join.call(args, ",")}`;
  const internFact = (pred: number, args: Int32Array): number => {
    const key = factKey(pred, args);
    let id = factIds.get(key);
    if (id === undefined) {
      id = factPred.length;
      factIds.set(key, id);
      factPred.push(pred);
      factArgs.push(args);
    }
    return id;
  };
  const reached: number[] = [];
  const isReached: boolean[] = [];
  const initFacts = new Set<number>();
  for (const atom of problem.init) {
    const id = internFact(predIds.get(atom.predicate)!, Int32Array.from(atom.args, (a) => objectIds.get(a)!));
    initFacts.add(id);
    if (!isReached[id]) (isReached[id] = true), reached.push(id);
  }

  // ---- relaxed exploration
  const maxArity = Math.max(1, ...domain.predicates.map((p) => p.parameters.length));
  const nObjects = objectNames.length;
  const byPred: number[][] = domain.predicates.map(() => []);
  const byArg = new Map<number, number[]>();
  const triggers: { schema: number; pre: number }[][] = domain.predicates.map(() => []);
  schemas.forEach((s, si) => s.pos.forEach((atom, pi) => triggers[atom.pred]!.push({ schema: si, pre: pi })));
  const groundKeys = new Set<string>();
  const grounded: { schema: number; args: Int32Array }[] = [];
  let work = 0;

  const instantiate = (atom: CompiledAtom, binding: Int32Array) => Int32Array.from(atom.terms, (t) => (t >= 0 ? binding[t]! : -t - 1));
  const finalize = (si: number, binding: Int32Array) => {
    const s = schemas[si]!;
    for (const e of s.eq) {
      const a = e.a >= 0 ? binding[e.a]! : -e.a - 1;
      const b = e.b >= 0 ? binding[e.b]! : -e.b - 1;
      if ((a === b) === e.negated) return;
    }
    for (const atom of s.neg) {
      if (fluent[atom.pred]) continue;
      const id = factIds.get(factKey(atom.pred, instantiate(atom, binding)));
      if (id !== undefined && initFacts.has(id)) return;
    }
    const key = `${si}:${binding.join(",")}`;
    if (groundKeys.has(key)) return;
    groundKeys.add(key);
    grounded.push({ schema: si, args: binding.slice() });
    if (grounded.length > limits.maxGroundActions) throw new PlanningLimit("grounding limit", `more than ${limits.maxGroundActions} ground actions`);
    for (const atom of s.add) {
      const id = internFact(atom.pred, instantiate(atom, binding));
      if (!isReached[id]) (isReached[id] = true), reached.push(id);
    }
  };
  const enumerateFree = (si: number, binding: Int32Array, param: number): void => {
    const s = schemas[si]!;
    if (param === s.params) return finalize(si, binding);
    if (binding[param]! >= 0) return enumerateFree(si, binding, param + 1);
    const allowed = s.allowed[param]!;
    for (let o = 0; o < nObjects; o++) {
      if (!allowed[o]) continue;
      binding[param] = o;
      enumerateFree(si, binding, param + 1);
    }
    binding[param] = -1;
  };
  const join = (si: number, order: number[], k: number, binding: Int32Array): void => {
    if ((++work & 0xfff) === 0) checkDeadline(limits, "grounding");
    const s = schemas[si]!;
    if (k === order.length) return enumerateFree(si, binding, 0);
    const atom = s.pos[order[k]!]!;
    let candidates = byPred[atom.pred]!;
    for (let i = 0; i < atom.terms.length; i++) {
      const t = atom.terms[i]!;
      const obj = t >= 0 ? binding[t]! : -t - 1;
      if (obj >= 0) {
        candidates = byArg.get((atom.pred * maxArity + i) * nObjects + obj) ?? [];
        break;
      }
    }
    const bound: number[] = [];
    for (const fact of candidates) {
      if (unify(atom, factArgs[fact]!, binding, s.allowed, bound)) join(si, order, k + 1, binding);
      for (const p of bound) binding[p] = -1;
      bound.length = 0;
    }
  };

  const binding0 = (n: number) => new Int32Array(n).fill(-1);
  schemas.forEach((s, si) => {
    if (s.pos.length === 0) join(si, [], 0, binding0(s.params));
  });
  for (let next = 0; next < reached.length; next++) {
    const fact = reached[next]!;
    const pred = factPred[fact]!;
    const args = factArgs[fact]!;
    byPred[pred]!.push(fact);
    for (let i = 0; i < args.length; i++) {
      const key = (pred * maxArity + i) * nObjects + args[i]!;
      const list = byArg.get(key);
      if (list) list.push(fact);
      else byArg.set(key, [fact]);
    }
    for (const { schema, pre } of triggers[pred]!) {
      const s = schemas[schema]!;
      const binding = binding0(s.params);
      if (unify(s.pos[pre]!, args, binding, s.allowed, [])) join(schema, s.orders[pre]!, 0, binding);
    }
  }
  checkDeadline(limits, "grounding");

  // ---- compile to fluent fact ids
  const fluentId = new Int32Array(factPred.length).fill(-1);
  const facts: string[] = [];
  const factName = (id: number) => formatAtom({ predicate: domain.predicates[factPred[id]!]!.name, args: Array.from(factArgs[id]!, (o) => objectNames[o]!) });
  for (const id of reached) {
    if (!fluent[factPred[id]!]) continue;
    fluentId[id] = facts.length;
    facts.push(factName(id));
  }
  const lookup = (atom: CompiledAtom, binding: Int32Array) => factIds.get(factKey(atom.pred, instantiate(atom, binding)));
  const actions: GroundAction[] = [];
  for (const { schema, args } of grounded) {
    const s = schemas[schema]!;
    const pre = new Set<number>();
    for (const atom of s.pos) if (fluent[atom.pred]) pre.add(fluentId[lookup(atom, args)!]!);
    const preNeg = new Set<number>();
    for (const atom of s.neg) {
      const id = fluent[atom.pred] ? lookup(atom, args) : undefined;
      if (id !== undefined && fluentId[id]! >= 0) preNeg.add(fluentId[id]!);
    }
    if ([...preNeg].some((f) => pre.has(f))) continue;
    const add = new Set(s.add.map((atom) => fluentId[lookup(atom, args)!]!));
    const del = new Set<number>();
    for (const atom of s.del) {
      const id = lookup(atom, args);
      if (id !== undefined && fluentId[id]! >= 0 && !add.has(fluentId[id]!)) del.add(fluentId[id]!);
    }
    for (const f of pre) add.delete(f);
    if (add.size === 0 && del.size === 0) continue;
    const argNames = Array.from(args, (o) => objectNames[o]!);
    actions.push({
      name: formatAtom({ predicate: s.name, args: argNames }),
      schema: s.name,
      args: argNames,
      pre: Int32Array.from(pre),
      preNeg: Int32Array.from(preNeg),
      add: Int32Array.from(add),
      del: Int32Array.from(del),
      cost: typeof s.cost === "number" ? s.cost : costValue(s.cost, args, objectNames, functionValues),
    });
  }

  // ---- goal
  const goal = new Set<number>();
  const goalNeg = new Set<number>();
  let unreachableGoal: string | undefined;
  for (const literal of problem.goal) {
    if (literal.predicate === "=") {
      if ((literal.args[0] === literal.args[1]) === literal.negated) unreachableGoal ??= `goal ${literal.negated ? "(not " : ""}(= ${literal.args.join(" ")})${literal.negated ? ")" : ""} is false`;
      continue;
    }
    const pred = predIds.get(literal.predicate)!;
    const id = factIds.get(factKey(pred, Int32Array.from(literal.args, (a) => objectIds.get(a)!)));
    const holds = id !== undefined && (fluent[pred] ? isReached[id] === true : initFacts.has(id));
    if (!literal.negated) {
      if (!holds) unreachableGoal ??= `goal fact ${formatAtom(literal)} is unreachable`;
      else if (fluent[pred]) goal.add(fluentId[id!]!);
    } else if (holds) {
      if (fluent[pred]) goalNeg.add(fluentId[id!]!);
      else unreachableGoal ??= `goal (not ${formatAtom(literal)}) contradicts a fact no action changes`;
    }
  }
  const init = Int32Array.from([...initFacts].filter((id) => fluentId[id]! >= 0), (id) => fluentId[id]!);
  return {
    facts,
    init,
    goal: Int32Array.from(goal),
    goalNeg: Int32Array.from(goalNeg),
    actions,
    ...(unreachableGoal ? { unreachableGoal } : {}),
    unitCost: actions.every((a) => a.cost === 1),
  };
}

/** Binds the atom's unbound parameters to the fact's arguments; the newly bound ones are listed in `bound`. */
function unify(atom: CompiledAtom, args: Int32Array, binding: Int32Array, allowed: Uint8Array[], bound: number[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const t = atom.terms[i]!;
    const obj = args[i]!;
    if (t < 0) {
      if (-t - 1 !== obj) return false;
    } else if (binding[t]! < 0) {
      if (!allowed[t]![obj]) return false;
      binding[t] = obj;
      bound.push(t);
    } else if (binding[t] !== obj) return false;
  }
  return true;
}

/** After the trigger, join next the precondition sharing the most already-bound parameters. */
function joinOrder(pos: CompiledAtom[], trigger: number, params: number): number[] {
  const bound = new Uint8Array(params);
  const bind = (a: CompiledAtom) => a.terms.forEach((t) => t >= 0 && (bound[t] = 1));
  bind(pos[trigger]!);
  const rest = pos.map((_, i) => i).filter((i) => i !== trigger);
  const order: number[] = [];
  while (rest.length > 0) {
    const score = (i: number) => {
      const terms = [...pos[i]!.terms];
      const free = terms.filter((t) => t >= 0 && !bound[t]).length;
      return (terms.length - free) * 100 - free;
    };
    rest.sort((a, b) => score(b) - score(a));
    const next = rest.shift()!;
    order.push(next);
    bind(pos[next]!);
  }
  return order;
}

/** For each type, which objects belong to it (an object of type t belongs to t's ancestors too). */
function typeMembers(domain: Domain, objectTypes: string[][]): Map<string, Uint8Array> {
  const parent = new Map(domain.types.map((t) => [t.name, t.parent]));
  const members = new Map<string, Uint8Array>([[OBJECT_TYPE, new Uint8Array(objectTypes.length).fill(1)]]);
  for (const t of domain.types) members.set(t.name, new Uint8Array(objectTypes.length));
  objectTypes.forEach((types, o) => {
    for (const type of types) for (let at: string | undefined = type; at && at !== OBJECT_TYPE; at = parent.get(at)) members.get(at)![o] = 1;
  });
  return members;
}

function unionOf(sets: Uint8Array[], size: number): Uint8Array {
  if (sets.length === 1) return sets[0]!;
  const out = new Uint8Array(size);
  for (const s of sets) for (let i = 0; i < size; i++) out[i] ||= s[i]!;
  return out;
}

function costValue(term: CostTerm, binding: Int32Array, objectNames: string[], values: Map<string, number>): number {
  const atom = { predicate: term.fn, args: Array.from(term.terms, (t) => objectNames[t >= 0 ? binding[t]! : -t - 1]!) };
  const value = values.get(formatAtom(atom));
  if (value === undefined) throw new GllamError("E_BAD_INPUT", `the problem's :init gives no value for ${formatAtom(atom)} (an action cost)`);
  return value;
}
