import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { GllamError } from "../../src/engine/errors.ts";
import { parseDomain, parseProblem } from "../../src/planning/parser.ts";
import type { Domain } from "../../src/planning/pddl-types.ts";
import { writeDomain, writeProblem } from "../../src/planning/writer.ts";
import { REPO_ROOT } from "../helpers.ts";
import { counterTask, DELIVERY_DOMAIN, DELIVERY_PROBLEM, ROADS_DOMAIN, ROADS_PROBLEM, TOKEN_DOMAIN, TOKEN_PROBLEM } from "../planning/fixtures.ts";
import { mutateText, createRng } from "./mutate.ts";

const SEED = 20_250_612;
const INPUTS = 10_000;
/** The dev suite, read where it lies (never copied into the repository); $GLLAM_PDDL_SUITE from a worktree elsewhere. */
const SUITE = process.env.GLLAM_PDDL_SUITE || join(REPO_ROOT, "../shared/data/pddl");

type Seed = { file: string; text: string; domain?: Domain };

/** The tests' own tasks, where the dev suite is not (as on CI). */
function fixtureSeeds(): Seed[] {
  const counter = counterTask(4);
  return [
    ["delivery", DELIVERY_DOMAIN, DELIVERY_PROBLEM],
    ["token", TOKEN_DOMAIN, TOKEN_PROBLEM],
    ["roads", ROADS_DOMAIN, ROADS_PROBLEM],
    ["counter", counter.domain, counter.problem],
  ].flatMap(([name, domainText, problemText]) => {
    const domain = parseDomain(domainText!, `${name}/domain.pddl`);
    return [{ file: `${name}/domain.pddl`, text: domainText! }, { file: `${name}/problem.pddl`, text: problemText!, domain }];
  });
}

/** Every domain, and every problem with its (unmutated) domain, of the dev suite; else the fixtures. */
function readSeeds(): Seed[] {
  if (!existsSync(SUITE)) return fixtureSeeds();
  return readdirSync(SUITE).flatMap((name) => {
    const folder = join(SUITE, name);
    const domainText = readFileSync(join(folder, "domain.pddl"), "utf8");
    const domain = parseDomain(domainText, `${name}/domain.pddl`);
    const problems = readdirSync(folder).filter((f) => f !== "domain.pddl");
    return [{ file: `${name}/domain.pddl`, text: domainText }, ...problems.map((f) => ({ file: `${name}/${f}`, text: readFileSync(join(folder, f), "utf8"), domain }))];
  });
}

/** Parses a mutated file; an accepted one must be a task the writer round-trips exactly. */
function attempt(seed: Seed, text: string, label: string): "accepted" | "refused" {
  try {
    if (seed.domain) {
      const problem = parseProblem(text, seed.domain, seed.file);
      if (!Bun.deepEquals(parseProblem(writeProblem(problem), seed.domain), problem)) throw new Error("accepted problem does not round-trip");
    } else {
      const domain = parseDomain(text, seed.file);
      if (!Bun.deepEquals(parseDomain(writeDomain(domain)), domain)) throw new Error("accepted domain does not round-trip");
    }
    return "accepted";
  } catch (error) {
    if (error instanceof GllamError && error.code === "E_BAD_INPUT" && error.message.startsWith(seed.file)) return "refused";
    throw new Error(`${label} (${seed.file}): ${String(error)}\ninput (first 500 characters): ${JSON.stringify(text.slice(0, 500))}`, { cause: error });
  }
}

test(`PDDL parser: ${INPUTS} mutated dev-suite files (the tests' own tasks without the suite; seed ${SEED}) give a valid task or E_BAD_INPUT naming the file`, () => {
  const seeds = readSeeds();
  const rng = createRng(SEED);
  const outcomes = { accepted: 0, refused: 0 };
  const [domains, problems] = [seeds.filter((s) => !s.domain), seeds.filter((s) => s.domain)];
  for (let i = 0; i < INPUTS; i++) {
    // Half domains, half problems (there are ten times more problem files).
    const seed = rng.pick(i % 2 === 0 ? domains : problems)!;
    outcomes[attempt(seed, mutateText(seed.text, rng), `input ${i}`)]++;
  }
  // Both outcomes must occur, or the mutations are too weak (or too strong) to test anything.
  expect(outcomes.accepted).toBeGreaterThan(INPUTS / 50);
  expect(outcomes.refused).toBeGreaterThan(INPUTS / 50);
}, 60_000);
