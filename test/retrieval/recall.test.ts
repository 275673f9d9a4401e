import { beforeAll, describe, expect, test } from "bun:test";
import type { Gllam } from "../../src/gllam/gllam.ts";
import { expectGllamError, makeTempDir, openTempGllam } from "../helpers.ts";

let gllam: Gllam;
beforeAll(async () => {
  gllam = await openTempGllam(makeTempDir());
  await gllam.seedSampleMemory();
  return () => gllam.close();
});

describe("recall", () => {
  test("a named entity is the focus, with its links and caveats in both directions", async () => {
    const result = await gllam.recall("how to deploy caddy", { entities: ["caddy"] });
    expect(result.focus.map((f) => [f.node.id, f.matchedBy])).toEqual([["caddy", "entity"]]);
    const links = result.focus[0]!.links;
    expect(links.find((l) => l.relationship === "binds_to")).toMatchObject({ direction: "out", otherName: "Tailscale", caveats: expect.stringContaining("FQDN") });
    expect(links.find((l) => l.relationship === "scrapes")).toMatchObject({ direction: "in", otherName: "Prometheus" });
    expect(result.similar[0]?.nodeId).toBe("caddy");
    expect(result.unresolvedEntities).toEqual([]);
  });

  test("without entities the nearest node is the focus", async () => {
    const result = await gllam.recall("web server");
    expect(result.focus.map((f) => [f.node.id, f.matchedBy])).toEqual([["caddy", "similarity"]]);
  });

  test("entities resolve by alias, unknown ones are reported, duplicates collapse", async () => {
    const result = await gllam.recall("storage", { entities: ["Postgres", "pg", "mysql"], k: 2 });
    expect(result.focus.map((f) => f.node.id)).toEqual(["postgres"]);
    expect(result.unresolvedEntities).toEqual(["mysql"]);
    expect(result.similar).toHaveLength(2);
  });

  test("asOf before any link was valid shows the node without links", async () => {
    const result = await gllam.recall("caddy", { entities: ["caddy"], asOf: Date.parse("2020-01-01") });
    expect(result.focus[0]!.links).toEqual([]);
  });

  test.each([
    ["", {}, /query is empty/],
    ["   ", {}, /query is empty/],
    ["x", { k: 0 }, /k must be an integer/],
    ["x", { k: 1.5 }, /k must be an integer/],
  ])("refuses %j %j", async (query, options, message) => {
    await expectGllamError(gllam.recall(query, options), "E_BAD_INPUT", message);
  });
});
