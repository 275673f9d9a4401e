import { afterAll, describe, expect, test } from "bun:test";
import type { Gllam } from "../../src/gllam/gllam.ts";
import { expectGllamError, makeTempDir, openTempGllam } from "../helpers.ts";

const dir = makeTempDir();
const gllam: Gllam = await openTempGllam(dir, { pddlDomainsDir: null });
afterAll(() => gllam.close());

describe("procedural store", () => {
  test("upsert creates version 1; a changed recipe bumps the version and keeps the history", () => {
    const created = gllam.upsertProceduralKnowledge({ taskType: "deploy_caddy", recipe: "1. apt install caddy", taxonomyPath: "/Engineering/Web" });
    expect(created).toMatchObject({ created: true, versioned: false, procedure: { version: 1, timesApplied: 0, isGolden: false, pddlAction: null } });
    const same = gllam.upsertProceduralKnowledge({ taskType: "deploy_caddy", recipe: "1. apt install caddy" });
    expect(same).toMatchObject({ created: false, versioned: false, procedure: { version: 1, taxonomyPath: "/Engineering/Web" } });
    const changed = gllam.upsertProceduralKnowledge({ taskType: "deploy_caddy", recipe: "1. apt install caddy\n2. bind to the Tailscale FQDN" });
    expect(changed).toMatchObject({ versioned: true, procedure: { version: 2 } });
    const withAction = gllam.upsertProceduralKnowledge({
      taskType: "deploy_caddy",
      recipe: "1. apt install caddy\n2. bind to the Tailscale FQDN",
      pddlAction: { name: "deploy-caddy", preconditions: ["(installed caddy)"], effects: ["(deployed caddy)"] },
    });
    expect(withAction.procedure).toMatchObject({ version: 3, pddlAction: { name: "deploy-caddy", parameters: [] } });
    expect(gllam.getProcedureVersions("deploy_caddy").map((v) => [v.version, v.pddlAction?.name ?? null])).toEqual([
      [1, null],
      [2, null],
      [3, "deploy-caddy"],
    ]);
    expect(gllam.getProcedureVersions("deploy_caddy")[0]!.recipe).toBe("1. apt install caddy");
  });

  test("a malformed action is refused before anything is written", async () => {
    const bad = { taskType: "deploy_caddy", recipe: "changed", pddlAction: { name: "x", parameters: [{ name: "s", type: "service" }], preconditions: ["(running ?t)"], effects: [] } };
    await expectGllamError(() => gllam.upsertProceduralKnowledge(bad), "E_BAD_INPUT", /preconditions\[0\]: \?t is not a parameter of x/);
    await expectGllamError(() => gllam.upsertProceduralKnowledge({ ...bad, pddlAction: { name: "x", effects: ["(deployed (caddy))"] } }), "E_BAD_INPUT", /nested lists/);
    await expectGllamError(() => gllam.upsertProceduralKnowledge({ taskType: "", recipe: "r" }), "E_BAD_INPUT", /taskType/);
    expect(gllam.getProcedureVersions("deploy_caddy").at(-1)).toMatchObject({ version: 3, recipe: "1. apt install caddy\n2. bind to the Tailscale FQDN" });
  });

  test("retrieveProcedure counts applications; a missing task type is undefined", () => {
    expect(gllam.retrieveProcedure("deploy_caddy")?.timesApplied).toBe(1);
    expect(gllam.retrieveProcedure("deploy_caddy")?.timesApplied).toBe(2);
    expect(gllam.retrieveProcedure("nothing")).toBeUndefined();
  });

  test("helpful marks set the golden flag, unhelpful ones clear it, counts accumulate", async () => {
    expect(gllam.markProcedureHelpful("deploy_caddy", true)).toMatchObject({ isGolden: true, helpfulCount: 1, unhelpfulCount: 0 });
    expect(gllam.markProcedureHelpful("deploy_caddy", false)).toMatchObject({ isGolden: false, helpfulCount: 1, unhelpfulCount: 1 });
    expect(gllam.markProcedureHelpful("deploy_caddy", true)).toMatchObject({ isGolden: true, helpfulCount: 2, unhelpfulCount: 1 });
    await expectGllamError(() => gllam.markProcedureHelpful("nothing", true), "E_NOT_FOUND", /no procedure for task type "nothing"/);
  });

  test("top procedures: golden first, then net helpfulness, then usage", () => {
    gllam.upsertProceduralKnowledge({ taskType: "backup_postgres", recipe: "pg_dump nightly", taxonomyPath: "/Engineering/Databases/Relational" });
    gllam.upsertProceduralKnowledge({ taskType: "rotate_logs", recipe: "logrotate weekly", taxonomyPath: "/Operations" });
    gllam.upsertProceduralKnowledge({ taskType: "tune_redis", recipe: "maxmemory-policy allkeys-lru", taxonomyPath: "/Engineering/Databases_old" });
    gllam.markProcedureHelpful("backup_postgres", true);
    gllam.markProcedureHelpful("backup_postgres", false); // net 0, not golden
    gllam.retrieveProcedure("rotate_logs");
    expect(gllam.getTopProcedures(10).map((p) => p.taskType)).toEqual(["deploy_caddy", "rotate_logs", "backup_postgres", "tune_redis"]);
    expect(gllam.getTopProcedures(1)).toHaveLength(1);
  });

  test("taxonomy prefix: the sub-tree only, with LIKE wildcards taken literally", () => {
    expect(gllam.getProceduresByTaxonomyPrefix("/Engineering").map((p) => p.taskType).sort()).toEqual(["backup_postgres", "deploy_caddy", "tune_redis"]);
    expect(gllam.getProceduresByTaxonomyPrefix("/Engineering/Databases/").map((p) => p.taskType)).toEqual(["backup_postgres"]);
    expect(gllam.getProceduresByTaxonomyPrefix("/Engineering/Data_ases")).toEqual([]);
    expect(gllam.getProceduresByTaxonomyPrefix("/")).toHaveLength(4);
  });

  test("scopes keep procedures apart", () => {
    gllam.upsertProceduralKnowledge({ scope: "team-b", taskType: "deploy_caddy", recipe: "docker run caddy" });
    expect(gllam.retrieveProcedure("deploy_caddy", "team-b")?.recipe).toBe("docker run caddy");
    expect(gllam.getTopProcedures(10, "team-b")).toHaveLength(1);
    expect(gllam.retrieveProcedure("deploy_caddy")?.recipe).toContain("apt install caddy");
  });
});
