import { describe, expect, test } from "bun:test";
import { normalizeEntityName } from "../../src/semantic/names.ts";
import { expectGllamError } from "../helpers.ts";
import { count, day, useGraphs } from "./fixtures.ts";

const graph = useGraphs();

test.each([
  ["New York City", "new york city"],
  ["  new-york   CITY! ", "new york city"],
  ["The Café", "cafe"],
  ["AT&T", "at and t"],
])("normalizeEntityName(%j) = %j", (name, key) => expect(normalizeEntityName(name)).toBe(key));

describe("resolveEntity and mergeNodes", () => {
  test("NYC, New York City and new york city resolve to one node once merged, keeping every link and its history", async () => {
    const gllam = await graph(["nyc:NYC", "new-york-city:New York City", "alice:Alice", "bob:Bob", "paris:Paris"]);
    gllam.addEdge({ sourceId: "alice", targetId: "nyc", relationship: "lives_in", validFrom: day("2024-01-01") });
    const bobLink = gllam.addEdge({ sourceId: "bob", targetId: "new-york-city", relationship: "works_in", validFrom: day("2024-01-01") });
    expect(gllam.resolveEntity("new york city").node?.id).toBe("new-york-city");
    expect(gllam.resolveEntity("NYC").node?.id).toBe("nyc");
    const report = gllam.mergeNodes("new-york-city", "nyc");
    expect(report).toMatchObject({ linksRepointed: 1, aliasesAdded: ["NYC"] });
    for (const name of ["NYC", "New York City", "new york city", "nyc", "New-York city"]) {
      expect(gllam.resolveEntity(name)).toMatchObject({ node: { id: "new-york-city" }, ambiguous: false });
    }
    expect(gllam.getNode("nyc")).toBeUndefined();
    expect(count(gllam, "semantic_links")).toBe(2);
    expect(gllam.activeLinks("new-york-city").map((l) => l.sourceId).sort()).toEqual(["alice", "bob"]);
    expect(gllam.linkHistory("alice", "lives_in")[0]!.events).toMatchObject([{ kind: "repointed", detail: expect.stringContaining("target nyc -> new-york-city") }]);
    expect(gllam.linkHistory("bob", "works_in")[0]!.link.id).toBe(bobLink.linkId);
    gllam.close();
  });

  test("two nodes with one normalised name are reported as ambiguous, most linked first", async () => {
    const gllam = await graph(["a:Mercury", "b:mercury", "x:X"]);
    gllam.addEdge({ sourceId: "x", targetId: "b", relationship: "orbits" });
    expect(gllam.resolveEntity("MERCURY")).toMatchObject({ ambiguous: true, node: { id: "b" }, candidates: [{ id: "b" }, { id: "a" }] });
    expect(gllam.resolveEntity("venus")).toMatchObject({ node: undefined, matchedBy: "none" });
    gllam.close();
  });

  test("a merge that brings two exclusive claims onto one node settles them by trust", async () => {
    const gllam = await graph(["srv1:server one", "srv1b:Server One", "rack1", "rack2"]);
    gllam.addEdge({ sourceId: "srv1", targetId: "rack1", relationship: "located_in", trustWeight: 300 });
    const strong = gllam.addEdge({ sourceId: "srv1b", targetId: "rack2", relationship: "located_in", trustWeight: 800 });
    const report = gllam.mergeNodes("srv1", "srv1b");
    expect(report.settled).toMatchObject([{ linkId: strong.linkId, action: "superseded" }]);
    expect(gllam.activeLinks("srv1").filter((l) => l.relationship === "located_in").map((l) => l.targetId)).toEqual(["rack2"]);
    gllam.close();
  });

  test("refuses merging a node into itself or an unknown node, writing nothing", async () => {
    const gllam = await graph(["a"]);
    await expectGllamError(() => gllam.mergeNodes("a", "a"), "E_BAD_INPUT", /into itself/);
    await expectGllamError(() => gllam.mergeNodes("a", "ghost"), "E_NOT_FOUND", /ghost/);
    expect(gllam.getNode("a")).toBeDefined();
    gllam.close();
  });
});
