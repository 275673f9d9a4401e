/**
 * The PDDL subset GLLAM plans with: STRIPS with :typing (type hierarchies, `either` parameter
 * types), :negative-preconditions, :equality, constants, objects, and :action-costs (constant or
 * function-valued `(increase (total-cost) ...)`). Names are lower-cased; variables keep their `?`.
 */

/** A name with its type; `types` has one entry, or several for `(either a b)`. */
export type TypedName = { name: string; types: string[] };

export type Atom = { predicate: string; args: string[] };

/** `predicate` "=" is equality (:equality). */
export type Literal = Atom & { negated: boolean };

export type TypeDeclaration = { name: string; parent: string };

export type PredicateDeclaration = { name: string; parameters: TypedName[] };

/** `(increase (total-cost) N)`: a number, or a function term whose value the problem's init gives. */
export type ActionCost = number | Atom;

export type ActionSchema = {
  name: string;
  parameters: TypedName[];
  precondition: Literal[];
  /** Positive literals add, negated ones delete. */
  effect: Literal[];
  cost?: ActionCost;
};

export type Domain = {
  name: string;
  requirements: string[];
  types: TypeDeclaration[];
  constants: TypedName[];
  predicates: PredicateDeclaration[];
  /** Cost functions (:action-costs), `total-cost` included when declared. */
  functions: PredicateDeclaration[];
  actions: ActionSchema[];
};

export type NumericFact = { atom: Atom; value: number };

export type Problem = {
  name: string;
  domain: string;
  requirements: string[];
  objects: TypedName[];
  init: Atom[];
  numericInit: NumericFact[];
  goal: Literal[];
  /** `(:metric minimize (total-cost))` */
  minimizeTotalCost: boolean;
};

/** One step of a plan: an action schema's name and its object arguments. */
export type PlanStep = { action: string; args: string[] };

export const OBJECT_TYPE = "object";
export const TOTAL_COST = "total-cost";

export const formatAtom = (atom: Atom): string => (atom.args.length === 0 ? `(${atom.predicate})` : `(${atom.predicate} ${atom.args.join(" ")})`);
export const formatStep = (step: PlanStep): string => formatAtom({ predicate: step.action, args: step.args });

/** With :action-costs an action without `increase` costs 0; without it, every action costs 1. */
export const usesActionCosts = (domain: Domain): boolean => domain.requirements.includes(":action-costs") || domain.actions.some((a) => a.cost !== undefined);
