import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseDomain, parseProblem } from "../../src/planning/parser.ts";
import { writeDomain, writeProblem } from "../../src/planning/writer.ts";
import { expectGllamError } from "../helpers.ts";
import { DELIVERY_DOMAIN, DELIVERY_PROBLEM, ROADS_DOMAIN, ROADS_PROBLEM } from "./fixtures.ts";

describe("PDDL parser", () => {
  test("reads types, constants, predicates, negative preconditions and equality, case-insensitively", () => {
    const domain = parseDomain(DELIVERY_DOMAIN);
    expect(domain.name).toBe("delivery");
    expect(domain.requirements).toEqual([":strips", ":typing", ":negative-preconditions", ":equality"]);
    expect(domain.types).toEqual([
      { name: "van", parent: "thing" },
      { name: "parcel", parent: "thing" },
      { name: "place", parent: "object" },
      { name: "thing", parent: "object" },
    ]);
    expect(domain.constants).toEqual([{ name: "depot", types: ["place"] }]);
    const drive = domain.actions.find((a) => a.name === "drive")!;
    expect(drive.parameters).toEqual([
      { name: "?v", types: ["van"] },
      { name: "?from", types: ["place"] },
      { name: "?to", types: ["place"] },
    ]);
    expect(drive.precondition).toContainEqual({ predicate: "=", args: ["?from", "?to"], negated: true });
    expect(drive.precondition).toContainEqual({ predicate: "broken", args: ["?v"], negated: true });
    const problem = parseProblem(DELIVERY_PROBLEM, domain);
    expect(problem.objects.map((o) => o.name)).toEqual(["v1", "a", "b", "c", "p1", "p2"]);
    expect(problem.init).toContainEqual({ predicate: "at", args: ["v1", "depot"] });
    expect(problem.goal).toHaveLength(2);
  });

  test("reads action costs and the metric", () => {
    const domain = parseDomain(ROADS_DOMAIN);
    expect(domain.actions[0]!.cost).toEqual({ predicate: "length", args: ["?a", "?b"] });
    const problem = parseProblem(ROADS_PROBLEM, domain);
    expect(problem.numericInit).toContainEqual({ atom: { predicate: "length", args: ["s", "t"] }, value: 10 });
    expect(problem.minimizeTotalCost).toBe(true);
  });

  const domainWith = (body: string, requirements = ":strips") => `(define (domain d)\n  (:requirements ${requirements})\n  (:predicates (p ?x) (q))\n${body})`;
  test.each([
    ["an unbalanced parenthesis", "(define (domain d)\n  (:predicates (p ?x)", /^d\.pddl:2:3: unclosed '\('/],
    ["a stray closing parenthesis", "(define (domain d)))", /^d\.pddl:1:20: unbalanced '\)'/],
    ["an unsupported requirement", domainWith("", ":strips :conditional-effects"), /^d\.pddl:2:26: unsupported requirement :conditional-effects/],
    ["a conditional effect", domainWith("  (:action a :parameters (?x) :precondition (q) :effect (when (q) (p ?x)))"), /^d\.pddl:4:57: \(when \.\.\.\) is not supported \(it needs :conditional-effects\)/],
    ["a derived predicate", domainWith("  (:derived (q) (p a))"), /^d\.pddl:4:3: derived predicates are not supported/],
    ["a numeric fluent", domainWith("  (:functions (fuel ?x) - number)\n  (:action a :parameters (?x) :precondition (q) :effect (decrease (fuel ?x) 1))"), /^d\.pddl:5:57: \(decrease \.\.\.\) is not supported \(it needs :numeric-fluents\)/],
    ["an undefined predicate", domainWith("  (:action a :parameters (?x) :precondition (r ?x) :effect (q))"), /^d\.pddl:4:45: undefined predicate r/],
    ["a wrong arity", domainWith("  (:action a :parameters (?x) :precondition (p ?x ?x) :effect (q))"), /^d\.pddl:4:45: predicate p takes 1 argument\(s\), got 2/],
    ["an unbound variable", domainWith("  (:action a :parameters (?x) :precondition (p ?y) :effect (q))"), /^d\.pddl:4:48: unbound variable \?y/],
    ["an unknown type", domainWith("  (:action a :parameters (?x - truck) :precondition (p ?x) :effect (q))", ":strips :typing"), /^d\.pddl:4:32: unknown type truck/],
    ["a name a megabyte long, quoted in part", domainWith(`  (:action a :parameters () :precondition (${"r".repeat(1_000_000)}) :effect (q))`), /^d\.pddl:4:43: undefined predicate r{200,}\.\.\. \(1000020 characters\)$/],
    // Found by test/fuzz/pddl.test.ts: the formula walk is recursive and overflowed the stack.
    ["a precondition nested 100,000 deep", domainWith(`  (:action a :parameters () :precondition ${"(and ".repeat(100_000)}(q)${")".repeat(100_000)} :effect (q))`), /^d\.pddl:4:\d+: lists nested more than 1000 deep/],
  ])("%s is an error with file:line:col", async (_name, text, message) => {
    await expectGllamError(() => parseDomain(text, "d.pddl"), "E_BAD_INPUT", message);
  });

  test("a formula nested within the limit still parses", () => {
    const deep = parseDomain(domainWith(`  (:action a :parameters () :precondition ${"(and ".repeat(900)}(q)${")".repeat(900)} :effect (q))`));
    expect(deep.actions[0]!.precondition).toEqual([{ predicate: "q", args: [], negated: false }]);
  });

  test.each([
    ["an undefined object", "(define (problem p) (:domain delivery) (:objects v1 - van) (:init (at v1 nowhere)) (:goal (at v1 depot)))", /^p\.pddl:1:74: undefined object or constant nowhere/],
    ["an object of an unknown type", "(define (problem p) (:domain delivery) (:objects v1 - lorry) (:init) (:goal (at v1 depot)))", /^p\.pddl:1:55: unknown type lorry/],
    ["a missing goal", "(define (problem p) (:domain delivery) (:init))", /^p\.pddl: the problem has no \(:goal/],
    ["a disjunctive goal", "(define (problem p) (:domain delivery) (:objects v1 - van) (:init) (:goal (or (at v1 depot))))", /\(or \.\.\.\) is not supported/],
  ])("a problem with %s is an error", async (_name, text, message) => {
    await expectGllamError(() => parseProblem(text, parseDomain(DELIVERY_DOMAIN), "p.pddl"), "E_BAD_INPUT", message);
  });

  test("the writer round-trips domains and problems", () => {
    for (const [domainText, problemText] of [
      [DELIVERY_DOMAIN, DELIVERY_PROBLEM],
      [ROADS_DOMAIN, ROADS_PROBLEM],
      // A written -0 is 0 (the fuzzer found it kept as -0, which the writer prints as 0).
      [ROADS_DOMAIN, ROADS_PROBLEM.replace("(= (total-cost) 0)", "(= (total-cost) -0)")],
    ] as const) {
      const domain = parseDomain(domainText);
      const problem = parseProblem(problemText, domain);
      expect(parseDomain(writeDomain(domain))).toEqual(domain);
      expect(Bun.deepEquals(parseProblem(writeProblem(problem), domain), problem, true)).toBe(true);
    }
  });

  const suite = join(import.meta.dir, "../../../shared/data/pddl");
  test.skipIf(!existsSync(suite))("every dev-suite domain and problem parses and round-trips", () => {
    let problems = 0;
    for (const name of readdirSync(suite)) {
      const domain = parseDomain(readFileSync(join(suite, name, "domain.pddl"), "utf8"), `${name}/domain.pddl`);
      expect(parseDomain(writeDomain(domain))).toEqual(domain);
      for (const file of readdirSync(join(suite, name)).filter((f) => f !== "domain.pddl")) {
        const problem = parseProblem(readFileSync(join(suite, name, file), "utf8"), domain, file);
        expect(parseProblem(writeProblem(problem), domain)).toEqual(problem);
        problems++;
      }
    }
    expect(problems).toBeGreaterThan(0);
  });
});
