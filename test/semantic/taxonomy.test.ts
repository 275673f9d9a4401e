import { describe, expect, test } from "bun:test";
import { MOVE_BATCH_SQL } from "../../src/semantic/taxonomy-consolidate.ts";
import { countNodesByTaxonomyPrefix, PREFIX_QUERY_SQL, underPrefixParams } from "../../src/semantic/taxonomy.ts";
import { expectGllamError } from "../helpers.ts";
import { snapshot, useGraphs } from "./fixtures.ts";

const graph = useGraphs();

const PATHS: [string, string][] = [
  ["eng", "/Engineering"],
  ["dbs", "/Engineering/DBs"],
  ["pg", "/Engineering/DBs/Relational/Postgres"],
  ["lower", "/engineering/dbs/Redis"],
  ["dbs2", "/Engineering/DBs2"],
  // LIKE wildcards in the data and in the prefix must match only themselves.
  ["under", "/Engineering/D_s"],
  ["pct", "/Engineering/100%"],
  ["pctx", "/Engineering/100x"],
  ["back", "/Engineering/a\\b"],
  ["orphan", "/"],
];

async function taxonomyGraph() {
  const gllam = await graph([]);
  for (const [id, path] of PATHS) gllam.upsertNode({ id, name: id, taxonomyPath: path, isCategory: id === "dbs" || id === "eng" });
  gllam.upsertNode({ id: "elsewhere", scope: "other", name: "Other scope", taxonomyPath: "/Engineering/DBs" });
  return gllam;
}

describe("getNodesByTaxonomyPrefix", () => {
  test.each([
    ["/Engineering/DBs", ["dbs", "lower", "pg"]],
    ["/engineering/DBS/", ["dbs", "lower", "pg"]],
    ["/Engineering/D_s", ["under"]],
    ["/Engineering/100%", ["pct"]],
    ["/Engineering/a\\b", ["back"]],
    ["/Engineering/DBs/Relational", ["pg"]],
    ["/Nowhere", []],
  ])("%p holds exactly %p", async (prefix, ids) => {
    const gllam = await taxonomyGraph();
    expect(gllam.getNodesByTaxonomyPrefix(prefix).map((n) => n.id).toSorted()).toEqual(ids.toSorted());
    expect(countNodesByTaxonomyPrefix(gllam.dbRO(), prefix)).toBe(ids.length);
    gllam.close();
  });

  test("the root holds every node of the scope; categoriesOnly and limit narrow it; paths come in order", async () => {
    const gllam = await taxonomyGraph();
    expect(gllam.getNodesByTaxonomyPrefix("/")).toHaveLength(PATHS.length);
    expect(gllam.getNodesByTaxonomyPrefix("/", { scope: "other" }).map((n) => n.id)).toEqual(["elsewhere"]);
    expect(gllam.getNodesByTaxonomyPrefix("/Engineering", { categoriesOnly: true }).map((n) => n.id)).toEqual(["eng", "dbs"]);
    const firstThree = gllam.getNodesByTaxonomyPrefix("/Engineering", { limit: 3 }).map((n) => n.taxonomyPath);
    expect(firstThree).toEqual(["/Engineering", "/Engineering/100%", "/Engineering/100x"]);
    await expectGllamError(() => gllam.getNodesByTaxonomyPrefix("Engineering"), "E_BAD_INPUT", /must start with \//);
    await expectGllamError(() => gllam.getNodesByTaxonomyPrefix("/x", { limit: 0 }), "E_BAD_INPUT", /limit/);
    gllam.close();
  });

  test("the prefix query and the consolidation batch are index range scans (EXPLAIN QUERY PLAN)", async () => {
    const gllam = await taxonomyGraph();
    for (let i = 0; i < 300; i++) gllam.upsertNode({ id: `bulk${i}`, name: `Bulk ${i}`, taxonomyPath: `/Bulk/B${i % 7}` });
    gllam.db().run("ANALYZE");
    const plan = (sql: string, params: (string | number)[]) =>
      gllam
        .dbRO()
        .query<{ detail: string }, (string | number)[]>(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...params)
        .map((row) => row.detail)
        .join(" | ");
    const prefix = plan(PREFIX_QUERY_SQL, ["default", ...underPrefixParams("/Bulk/B1"), 0, 100]);
    expect(prefix).toContain("USING INDEX idx_semantic_nodes_taxonomy (scope=? AND taxonomy_path>? AND taxonomy_path<?)");
    expect(prefix).not.toContain("TEMP B-TREE");
    const escaped = plan(PREFIX_QUERY_SQL, ["default", ...underPrefixParams("/Engineering/D_s"), 0, 100]);
    expect(escaped).toContain("taxonomy_path>? AND taxonomy_path<?");
    const move = plan(MOVE_BATCH_SQL, ["/To", 8, 0, "default", ...underPrefixParams("/Bulk/B1"), 500]);
    expect(move).toContain("INDEX idx_semantic_nodes_taxonomy (scope=? AND taxonomy_path>? AND taxonomy_path<?)");
    gllam.close();
  });
});

describe("taxonomy cycles", () => {
  async function seedExample() {
    const gllam = await graph([]);
    gllam.upsertNode({ id: "infra-storage", name: "Storage", type: "category", isCategory: true, taxonomyPath: "/Infrastructure/Storage" });
    gllam.upsertNode({ id: "storage-dbs", name: "Databases", type: "category", isCategory: true, taxonomyPath: "/Storage/Databases" });
    gllam.upsertNode({ id: "postgres", name: "Postgres", taxonomyPath: "/Storage/Databases" });
    return gllam;
  }

  test("addEdge refuses the seed's /Infrastructure/Storage -> /Storage/Databases -> /Infrastructure/Storage loop and writes nothing", async () => {
    const gllam = await seedExample();
    expect(gllam.addEdge({ sourceId: "storage-dbs", targetId: "infra-storage", relationship: "subclass_of" }).action).toBe("inserted");
    expect(gllam.addEdge({ sourceId: "postgres", targetId: "storage-dbs", relationship: "is_a" }).action).toBe("inserted");
    expect(gllam.wouldCreateTaxonomyCycle("postgres", "infra-storage")).toEqual({ wouldCycle: false, chain: [] });
    expect(gllam.wouldCreateTaxonomyCycle("infra-storage", "postgres").chain).toEqual(["postgres", "storage-dbs", "infra-storage"]);
    expect(gllam.wouldCreateTaxonomyCycle("infra-storage", "storage-dbs")).toEqual({ wouldCycle: true, chain: ["storage-dbs", "infra-storage"] });
    const before = snapshot(gllam);
    const error = await expectGllamError(
      () => gllam.addEdge({ sourceId: "infra-storage", targetId: "storage-dbs", relationship: "is_a" }),
      "E_TAXONOMY_CYCLE",
      /Storage -\[is_a\]-> Databases would close a taxonomy cycle \(Storage -> Databases -> Storage\)/,
    );
    expect(error.message).toContain("nothing was written");
    expect(snapshot(gllam)).toEqual(before);
    expect(gllam.detectTaxonomyCycles()).toEqual({ hasCycle: false, cyclicNodes: [], cycles: [] });
    gllam.close();
  });

  test("a longer loop is refused too; other relationships may loop; an ended link no longer counts", async () => {
    const gllam = await graph(["A", "B", "C", "D"]);
    gllam.addEdge({ sourceId: "a", targetId: "b", relationship: "is_a" });
    gllam.addEdge({ sourceId: "b", targetId: "c", relationship: "subclass_of" });
    const cd = gllam.addEdge({ sourceId: "c", targetId: "d", relationship: "is_a", validFrom: Date.now() - 10_000 });
    await expectGllamError(() => gllam.addEdge({ sourceId: "d", targetId: "a", relationship: "subclass_of" }), "E_TAXONOMY_CYCLE", /D -> A -> B -> C -> D/);
    expect(gllam.addEdge({ sourceId: "d", targetId: "a", relationship: "depends_on" }).action).toBe("inserted");
    gllam.invalidateObsoleteEdge(cd.linkId, Date.now() - 1000);
    expect(gllam.addEdge({ sourceId: "d", targetId: "a", relationship: "is_a" }).action).toBe("inserted");
    gllam.close();
  });

  test("detectTaxonomyCycles names the nodes on loops an older file already holds", async () => {
    const gllam = await seedExample();
    gllam.addEdge({ sourceId: "storage-dbs", targetId: "infra-storage", relationship: "subclass_of" });
    gllam.addEdge({ sourceId: "postgres", targetId: "storage-dbs", relationship: "is_a" });
    // Written around addEdge, as a file from before the check would hold it.
    gllam.db().run("INSERT INTO semantic_links (source_id, target_id, relationship, valid_from, recorded_at) VALUES ('infra-storage', 'storage-dbs', 'is_a', 0, 0)");
    expect(gllam.detectTaxonomyCycles()).toEqual({ hasCycle: true, cyclicNodes: ["infra-storage", "storage-dbs"], cycles: [["infra-storage", "storage-dbs"]] });
    expect(gllam.detectTaxonomyCycles({ scope: "other" }).hasCycle).toBe(false);
    gllam.close();
  });
});
