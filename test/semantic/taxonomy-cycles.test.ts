import { describe, expect, test } from "bun:test";
import { findTaxonomyCycles, kahnLeftovers, type TaxonomyEdge } from "../../src/semantic/taxonomy-cycles.ts";
import { isUnderTaxonomyPath, normalizeTaxonomyPath, rewriteTaxonomyPath, taxonomySegments } from "../../src/semantic/taxonomy-paths.ts";
import { expectGllamError } from "../helpers.ts";

// Edges are child -> parent (is_a / subclass_of).
const cases: { name: string; edges: TaxonomyEdge[]; cycles: string[][]; leftovers: string[] }[] = [
  { name: "an empty taxonomy", edges: [], cycles: [], leftovers: [] },
  {
    name: "a tree (Postgres < Relational < Databases < Infrastructure)",
    edges: [["postgres", "relational"], ["mysql", "relational"], ["relational", "databases"], ["redis", "databases"], ["databases", "infrastructure"]],
    cycles: [],
    leftovers: [],
  },
  {
    name: "a diamond is not a cycle",
    edges: [["d", "b"], ["d", "c"], ["b", "a"], ["c", "a"]],
    cycles: [],
    leftovers: [],
  },
  {
    // The seed's example: /Infrastructure/Storage -> /Storage/Databases -> /Infrastructure/Storage.
    name: "the seed's /Infrastructure/Storage loop, with a node hanging below it",
    edges: [["/Storage/Databases", "/Infrastructure/Storage"], ["/Infrastructure/Storage", "/Storage/Databases"], ["/Storage/Databases/Postgres", "/Storage/Databases"], ["/Infrastructure/Storage", "/Infrastructure"]],
    cycles: [["/Infrastructure/Storage", "/Storage/Databases"]],
    // Kahn cannot order the loop nor what feeds into it... only nodes downstream of the loop stay.
    leftovers: ["/Infrastructure", "/Infrastructure/Storage", "/Storage/Databases"],
  },
  {
    name: "a self-loop",
    edges: [["a", "a"], ["b", "a"]],
    cycles: [["a"]],
    leftovers: ["a"],
  },
  {
    name: "two separate cycles and a node between them that is on neither",
    edges: [["a", "b"], ["b", "a"], ["b", "x"], ["x", "c"], ["c", "d"], ["d", "e"], ["e", "c"]],
    cycles: [["a", "b"], ["c", "d", "e"]],
    leftovers: ["a", "b", "c", "d", "e", "x"],
  },
];

describe("findTaxonomyCycles (Kahn, then strongly connected components)", () => {
  for (const c of cases) {
    test(c.name, () => {
      const report = findTaxonomyCycles(c.edges);
      expect(report.cycles).toEqual(c.cycles);
      expect(report.hasCycle).toBe(c.cycles.length > 0);
      expect(report.cyclicNodes).toEqual(c.cycles.flat().toSorted());
      expect([...kahnLeftovers(c.edges)].toSorted()).toEqual(c.leftovers);
    });
  }

  test("a 20,000-deep chain closed into one loop does not overflow the stack", () => {
    const edges: TaxonomyEdge[] = Array.from({ length: 20_000 }, (_, i) => [`n${i}`, `n${(i + 1) % 20_000}`]);
    const report = findTaxonomyCycles(edges);
    expect(report.cycles).toHaveLength(1);
    expect(report.cyclicNodes).toHaveLength(20_000);
  });
});

describe("taxonomy paths", () => {
  test.each([
    ["/Engineering/DBs/", "/Engineering/DBs"],
    [" /Engineering / DBs ", "/Engineering/DBs"],
    ["/", "/"],
  ])("normalizeTaxonomyPath(%p) = %p", (input, output) => {
    expect(normalizeTaxonomyPath(input)).toBe(output);
  });

  test("bad paths are refused with what is wrong", async () => {
    await expectGllamError(() => normalizeTaxonomyPath("Engineering"), "E_BAD_INPUT", /must start with \//);
    await expectGllamError(() => normalizeTaxonomyPath("/a//b"), "E_BAD_INPUT", /empty segment/);
  });

  test("prefixes respect segment boundaries and ignore ASCII case", () => {
    expect(isUnderTaxonomyPath("/Eng/DBs/Postgres", "/Eng/DBs")).toBe(true);
    expect(isUnderTaxonomyPath("/eng/dbs", "/Eng/DBs")).toBe(true);
    expect(isUnderTaxonomyPath("/Eng/DBs2", "/Eng/DBs")).toBe(false);
    expect(isUnderTaxonomyPath("/anything", "/")).toBe(true);
    expect(rewriteTaxonomyPath("/Eng/DBs/SQL/Postgres", "/Eng/DBs", "/Eng/Infra/Databases")).toBe("/Eng/Infra/Databases/SQL/Postgres");
    expect(rewriteTaxonomyPath("/Eng/DBs2", "/Eng/DBs", "/X")).toBe("/Eng/DBs2");
    expect(taxonomySegments("/")).toEqual([]);
    expect(taxonomySegments("/a/b")).toEqual(["a", "b"]);
  });
});
