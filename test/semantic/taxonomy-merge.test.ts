import { describe, expect, test } from "bun:test";
import {
  ABBREVIATION_SCORE,
  categoryNameKey,
  categoryNameSimilarity,
  isAbbreviation,
  scoreCategoryPair,
} from "../../src/semantic/taxonomy-merge.ts";
import { trigramDice } from "../../src/semantic/names.ts";
import { createKeywordEmbedder } from "../fixtures/keyword-embedder.ts";
import { makeTempDir, openTempGllam } from "../helpers.ts";

describe("category name similarity (pure)", () => {
  test.each([
    ["Relational Databases", "relational database"],
    ["Categories", "category"],
    ["DBs", "db"],
    ["Class", "class"],
    ["The Web-Servers!", "web server"],
  ])("categoryNameKey(%p) = %p", (name, key) => expect(categoryNameKey(name)).toBe(key));

  test.each([
    ["Database", "databases", 1],
    ["DBs", "Databases", ABBREVIATION_SCORE],
    ["Infra", "Infrastructure", ABBREVIATION_SCORE],
    ["Web Servers", "web-server", 1],
  ])("categoryNameSimilarity(%p, %p) = %p", (a, b, score) => expect(categoryNameSimilarity(a, b)).toBe(score));

  test("unrelated names score low; spelling variants in between", () => {
    expect(categoryNameSimilarity("Storage", "Compute")).toBeLessThan(0.2);
    expect(categoryNameSimilarity("Kubernetes", "Kubernets")).toBeGreaterThan(0.6);
    expect(isAbbreviation("db", "data")).toBe(false); // not clearly shorter
    expect(isAbbreviation("xb", "database")).toBe(false);
    expect(trigramDice("abc", "abc")).toBe(1);
  });

  test("scoreCategoryPair: the same name decides; else names 0.4, vectors 0.6; without vectors, the name alone", () => {
    const [x, y] = [Float32Array.from([1, 0]), Float32Array.from([0, 1])];
    expect(scoreCategoryPair({ name: "Database", vector: x }, { name: "Databases", vector: y })).toEqual({ score: 1, nameScore: 1, embeddingScore: 0 });
    const abbreviated = scoreCategoryPair({ name: "DBs", vector: x }, { name: "Databases", vector: x });
    expect(abbreviated.score).toBeCloseTo(0.4 * ABBREVIATION_SCORE + 0.6);
    expect(scoreCategoryPair({ name: "DBs" }, { name: "Databases" })).toEqual({ score: ABBREVIATION_SCORE, nameScore: ABBREVIATION_SCORE, embeddingScore: null });
  });
});

describe("discoverTaxonomyMergeCandidates", () => {
  const dir = makeTempDir();
  test("finds synonym categories by name and vectors, smaller branch first, skipping nested ones", async () => {
    const gllam = await openTempGllam(dir, { embedder: createKeywordEmbedder([["database", "dbs"]]) });
    const category = (id: string, name: string, taxonomyPath: string) => gllam.upsertNode({ id, name, type: "category", isCategory: true, taxonomyPath });
    category("databases", "Databases", "/Infrastructure/Databases");
    category("relational", "Relational", "/Infrastructure/Databases/Relational");
    category("dbs", "DBs", "/Legacy/DBs");
    category("database", "Database", "/Engineering/Database");
    category("storage", "Storage", "/Storage");
    for (const [id, path] of [["pg", "/Infrastructure/Databases/Relational"], ["redis", "/Infrastructure/Databases"], ["old", "/Legacy/DBs"]]) gllam.upsertNode({ id: id!, name: id!, taxonomyPath: path! });

    const candidates = await gllam.discoverTaxonomyMergeCandidates();
    const pairs = candidates.map((c) => [c.from.id, c.to.id, Number(c.score.toFixed(3)), c.from.nodes, c.to.nodes]);
    const abbreviated = Number((0.4 * ABBREVIATION_SCORE + 0.6).toFixed(3));
    expect(pairs).toEqual([
      ["database", "databases", 1, 1, 4],
      ["database", "dbs", abbreviated, 1, 2],
      ["dbs", "databases", abbreviated, 2, 4],
    ]);
    expect(candidates[0]).toMatchObject({ nameScore: 1, embeddingScore: 1, from: { name: "Database", path: "/Engineering/Database" } });
    expect(await gllam.discoverTaxonomyMergeCandidates({ minScore: 0.99 })).toHaveLength(1);
    gllam.close();
  });
});
