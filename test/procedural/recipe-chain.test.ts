import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Gllam } from "../../src/gllam/gllam.ts";
import { parseDomain, parseProblem } from "../../src/planning/parser.ts";
import { safeFileStem } from "../../src/planning/persist.ts";
import { expectGllamError, makeTempDir, openTempGllam } from "../helpers.ts";

const dir = makeTempDir();
const pddlDir = join(dir, "pddl_domains");
const gllam: Gllam = await openTempGllam(dir, { pddlDomainsDir: pddlDir });
afterAll(() => gllam.close());

const recipe = (taskType: string, name: string, parameters: { name: string; type: string }[], preconditions: string[], effects: string[]) =>
  gllam.upsertProceduralKnowledge({ taskType, recipe: `how to ${taskType}`, taxonomyPath: "/Infra", pddlAction: { name, parameters, preconditions, effects } });

describe("recipe chains", () => {
  recipe("install_package", "install", [{ name: "s", type: "service" }], ["(not (installed ?s))"], ["(installed ?s)"]);
  recipe("join_tailnet", "join-tailnet", [], [], ["(on-tailnet)"]);
  recipe("configure_fqdn", "configure", [{ name: "s", type: "service" }], ["(installed ?s)", "(on-tailnet)"], ["(configured ?s)"]);
  recipe("deploy_service", "deploy", [{ name: "s", type: "service" }], ["(configured ?s)"], ["(deployed ?s)", "(running ?s)"]);
  gllam.upsertProceduralKnowledge({ taskType: "write_docs", recipe: "no action here" });

  test("a goal yields the chain of recipes that reaches it, in a valid order", () => {
    const chain = gllam.planProcedures(["(deployed caddy)"]);
    expect(chain.status).toBe("solved");
    const order = chain.steps.map((s) => s.taskType);
    expect(order.sort()).toEqual(["configure_fqdn", "deploy_service", "install_package", "join_tailnet"]);
    const steps = chain.steps.map((s) => s.step);
    expect(steps.indexOf("(install caddy)")).toBeLessThan(steps.indexOf("(configure caddy)"));
    expect(steps.at(-1)).toBe("(deploy caddy)");
    expect(chain.steps.at(-1)!.recipe).toBe("how to deploy_service");
  });

  test("facts already true shorten the chain; an unreachable goal is unsolvable", () => {
    const chain = gllam.planProcedures(["(deployed caddy)"], { init: ["(installed caddy)", "(on-tailnet)"] });
    expect(chain.steps.map((s) => s.taskType)).toEqual(["configure_fqdn", "deploy_service"]);
    expect(gllam.planProcedures(["(certified caddy)"]).status).toBe("unsolvable");
  });

  test("the generated domain and problem are persisted with safe names and parse back", () => {
    const chain = gllam.planProcedures(["(running grafana)"]);
    expect(chain.files!.domainFile.startsWith(pddlDir)).toBe(true);
    const domain = parseDomain(readFileSync(chain.files!.domainFile, "utf8"), chain.files!.domainFile);
    expect(domain.actions.map((a) => a.name).sort()).toEqual(["configure", "deploy", "install", "join-tailnet"]);
    const problem = parseProblem(readFileSync(chain.files!.problemFile, "utf8"), domain);
    expect(problem.objects).toEqual([{ name: "grafana", types: ["service"] }]);
    expect(readdirSync(pddlDir).every((f) => /^[a-z0-9-]+\.(domain|problem)\.pddl$/.test(f))).toBe(true);
  });

  test("file stems are safe and distinct", () => {
    expect(safeFileStem("../../etc/passwd")).toMatch(/^etc-passwd-[0-9a-f]{8}$/);
    expect(safeFileStem("Caddy Deployed!")).not.toBe(safeFileStem("caddy deployed"));
    expect(safeFileStem("")).toMatch(/^task-[0-9a-f]{8}$/);
  });

  test("a goal that is no literal, or procedures that disagree on a predicate, are errors", async () => {
    await expectGllamError(() => gllam.planProcedures([]), "E_BAD_INPUT", /the goal names no fact/);
    await expectGllamError(() => gllam.planProcedures(["(deployed caddy extra)"]), "E_BAD_INPUT", /deployed takes 1 argument\(s\) in action/);
    expect(existsSync(pddlDir)).toBe(true);
  });
});
