import { formatAtom, OBJECT_TYPE, TOTAL_COST, type ActionCost, type Domain, type Literal, type PredicateDeclaration, type Problem, type TypedName } from "./pddl-types.ts";

/** PDDL text for the subset the parser reads; parseDomain(writeDomain(d)) equals d. */
export function writeDomain(domain: Domain): string {
  const lines = [`(define (domain ${domain.name})`];
  if (domain.requirements.length > 0) lines.push(`  (:requirements ${domain.requirements.join(" ")})`);
  if (domain.types.length > 0) lines.push(`  (:types ${domain.types.map((t) => `${t.name} - ${t.parent}`).join(" ")})`);
  if (domain.constants.length > 0) lines.push(`  (:constants ${writeTypedList(domain.constants)})`);
  lines.push(`  (:predicates${domain.predicates.map((p) => ` ${writeDeclaration(p)}`).join("")})`);
  if (domain.functions.length > 0) lines.push(`  (:functions${domain.functions.map((f) => ` ${writeDeclaration(f)} - number`).join("")})`);
  for (const action of domain.actions) {
    lines.push(`  (:action ${action.name}`);
    lines.push(`    :parameters (${writeTypedList(action.parameters)})`);
    lines.push(`    :precondition ${writeConjunction(action.precondition)}`);
    lines.push(`    :effect ${writeConjunction(action.effect, action.cost)})`);
  }
  lines.push(")");
  return `${lines.join("\n")}\n`;
}

export function writeProblem(problem: Problem): string {
  const lines = [`(define (problem ${problem.name})`, `  (:domain ${problem.domain})`];
  if (problem.requirements.length > 0) lines.push(`  (:requirements ${problem.requirements.join(" ")})`);
  if (problem.objects.length > 0) lines.push(`  (:objects ${writeTypedList(problem.objects)})`);
  lines.push("  (:init");
  for (const atom of problem.init) lines.push(`    ${formatAtom(atom)}`);
  for (const fact of problem.numericInit) lines.push(`    (= ${formatAtom(fact.atom)} ${fact.value})`);
  lines.push("  )");
  lines.push(`  (:goal ${writeConjunction(problem.goal)})`);
  if (problem.minimizeTotalCost) lines.push(`  (:metric minimize (${TOTAL_COST}))`);
  lines.push(")");
  return `${lines.join("\n")}\n`;
}

const writeType = (types: string[]) => (types.length === 1 ? types[0]! : `(either ${types.join(" ")})`);

/** Consecutive names of one type share a `- type` suffix; `object` is written explicitly only when mixed. */
function writeTypedList(names: TypedName[]): string {
  if (names.every((n) => n.types.length === 1 && n.types[0] === OBJECT_TYPE)) return names.map((n) => n.name).join(" ");
  const parts: string[] = [];
  names.forEach((n, i) => {
    parts.push(n.name);
    const next = names[i + 1];
    if (!next || writeType(next.types) !== writeType(n.types)) parts.push(`- ${writeType(n.types)}`);
  });
  return parts.join(" ");
}

const writeDeclaration = (p: PredicateDeclaration) => (p.parameters.length === 0 ? `(${p.name})` : `(${p.name} ${writeTypedList(p.parameters)})`);
const writeLiteral = (l: Literal) => (l.negated ? `(not ${formatAtom(l)})` : formatAtom(l));

function writeConjunction(literals: Literal[], cost?: ActionCost): string {
  const parts = literals.map(writeLiteral);
  if (cost !== undefined) parts.push(`(increase (${TOTAL_COST}) ${typeof cost === "number" ? cost : formatAtom(cost)})`);
  return parts.length === 1 ? parts[0]! : `(and${parts.map((p) => ` ${p}`).join("")})`;
}
