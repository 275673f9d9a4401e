import { describe, expect, test } from "bun:test";
import type { Categorizer } from "../../src/semantic/taxonomy-categorize.ts";
import { categorizeByEmbedding, typeCategoryPath } from "../../src/semantic/taxonomy-categorize.ts";
import { createKeywordEmbedder } from "../fixtures/keyword-embedder.ts";
import { expectGllamError, makeTempDir, openTempGllam } from "../helpers.ts";

const dir = makeTempDir();
const embedder = createKeywordEmbedder([
  ["database", "postgres"],
  ["people", "engineer"],
]);

async function orphans() {
  const gllam = await openTempGllam(dir, { embedder });
  gllam.upsertNode({ id: "cat-db", name: "Databases", type: "category", isCategory: true, taxonomyPath: "/Infrastructure/Databases" });
  gllam.upsertNode({ id: "cat-people", name: "People", type: "category", isCategory: true, taxonomyPath: "/Org/People" });
  gllam.upsertNode({ id: "postgres", name: "Postgres", type: "database" });
  gllam.upsertNode({ id: "alice", name: "Alice", type: "person", contextPrompt: "staff engineer" });
  gllam.upsertNode({ id: "caddy", name: "Caddy", type: "service" });
  gllam.upsertNode({ id: "traefik", name: "Traefik", type: "service" });
  gllam.upsertNode({ id: "mysql", name: "MySQL", type: "software" });
  gllam.addEdge({ sourceId: "mysql", targetId: "cat-db", relationship: "is_a" });
  gllam.upsertNode({ id: "contradiction:1", name: "A vs B", type: "contradiction" });
  gllam.upsertNode({ id: "filed", name: "Filed already", taxonomyPath: "/Elsewhere" });
  return gllam;
}

const isA = (gllam: Awaited<ReturnType<typeof orphans>>, id: string) =>
  gllam.activeLinks(id).filter((l) => l.relationship === "is_a" && l.direction === "out").map((l) => l.targetId);

describe("processUncategorizedBatch", () => {
  test("files orphans by an existing is_a, by the nearest category vector, else under their type; leaves engine nodes alone", async () => {
    const gllam = await orphans();
    const report = await gllam.processUncategorizedBatch(50);
    const byNode = Object.fromEntries(report.categorized.map((c) => [c.nodeId, c]));
    expect(Object.keys(byNode).toSorted()).toEqual(["alice", "caddy", "mysql", "postgres", "traefik"]);
    expect(byNode.mysql).toMatchObject({ path: "/Infrastructure/Databases", categoryId: "cat-db", linked: false, reason: "already is_a this category" });
    expect(byNode.postgres).toMatchObject({ path: "/Infrastructure/Databases", categoryId: "cat-db", linked: true, score: 1 });
    expect(byNode.alice).toMatchObject({ path: "/Org/People", categoryId: "cat-people", linked: true });
    expect(byNode.caddy).toMatchObject({ path: "/Service", linked: true });
    expect(byNode.caddy!.reason).toContain('filed by type "service"');
    // One /Service category, created once and shared within the batch.
    expect(report.createdCategories).toEqual(["category:Service"]);
    expect(byNode.traefik!.categoryId).toBe("category:Service");
    expect(gllam.getNode("category:Service")).toMatchObject({ name: "Service", type: "category", isCategory: true, taxonomyPath: "/Service" });
    expect(report).toMatchObject({ skipped: [], remaining: 0 });

    expect(gllam.getNode("postgres")?.taxonomyPath).toBe("/Infrastructure/Databases");
    expect(isA(gllam, "postgres")).toEqual(["cat-db"]);
    expect(isA(gllam, "mysql")).toEqual(["cat-db"]);
    expect(gllam.getNode("contradiction:1")?.taxonomyPath).toBe("/");
    expect(gllam.getNode("filed")?.taxonomyPath).toBe("/Elsewhere");
    expect((await gllam.processUncategorizedBatch(50)).categorized).toEqual([]);
    gllam.close();
  });

  test("takes n at a time and says how many wait", async () => {
    const gllam = await orphans();
    const first = await gllam.processUncategorizedBatch(2);
    expect(first.categorized).toHaveLength(2);
    expect(first.remaining).toBe(3);
    await expectGllamError(gllam.processUncategorizedBatch(0), "E_BAD_INPUT", /batch size/);
    gllam.close();
  });

  test("a categorizer behind the interface (an LLM later): new nested paths get category chains; bad answers are skipped, nothing filed wrongly", async () => {
    const gllam = await orphans();
    const answers: unknown[] = [
      { nodeId: "caddy", path: "/Engineering/Web/Proxies/", reason: "reverse proxy" },
      { nodeId: "traefik", path: "not a path" },
      { nodeId: "nobody", path: "/X" },
      { nodeId: "postgres", path: "/" },
      "garbage",
    ];
    const llm: Categorizer = { name: "stub-llm", needsVectors: false, categorize: async () => answers as never };
    const report = await gllam.processUncategorizedBatch(50, { categorizer: llm });
    expect(report.categorized.map((c) => [c.nodeId, c.path])).toEqual([
      ["mysql", "/Infrastructure/Databases"],
      ["caddy", "/Engineering/Web/Proxies"],
    ]);
    expect(report.createdCategories).toEqual(["category:Engineering", "category:Engineering:Web", "category:Engineering:Web:Proxies"]);
    expect(gllam.activeLinks("category:Engineering:Web:Proxies").find((l) => l.direction === "out")).toMatchObject({
      relationship: "subclass_of",
      targetId: "category:Engineering:Web",
    });
    expect(report.skipped.map((s) => s.nodeId).toSorted()).toEqual(["?", "alice", "nobody", "postgres", "traefik"]);
    expect(report.skipped.find((s) => s.nodeId === "traefik")?.reason).toContain("must start with /");
    expect(report.skipped.find((s) => s.nodeId === "alice")?.reason).toBe("the categorizer gave no answer");
    for (const id of ["traefik", "postgres", "alice"]) expect(gllam.getNode(id)?.taxonomyPath).toBe("/");
    expect(report.remaining).toBe(3);
    gllam.close();
  });
});

describe("categorizeByEmbedding (pure)", () => {
  const v = (...xs: number[]) => Float32Array.from(xs);
  test("the nearest category at or above the threshold wins; below it, the type's category", () => {
    const categories = [
      { id: "a", name: "Alpha", path: "/A", vector: v(1, 0) },
      { id: "b", name: "Beta", path: "/B", vector: v(0.6, 0.8) },
    ];
    const decisions = categorizeByEmbedding(
      [
        { id: "x", name: "X", type: "thing", contextPrompt: "", aliases: [], vector: v(0, 1) },
        { id: "y", name: "Y", type: "thing", contextPrompt: "", aliases: [], vector: v(-1, 0) },
      ],
      categories,
      0.5,
    );
    expect(decisions[0]).toMatchObject({ nodeId: "x", path: "/B" });
    expect(decisions[0]!.score).toBeCloseTo(0.8);
    expect(decisions[1]).toMatchObject({ nodeId: "y", path: "/Thing" });
    expect(typeCategoryPath("web/service")).toBe("/Web-service");
  });
});
