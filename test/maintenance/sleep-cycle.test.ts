import { describe, expect, test } from "bun:test";
import type { Gllam } from "../../src/gllam/gllam.ts";
import { readJob } from "../../src/engine/jobs.ts";
import { writeMetadata } from "../../src/engine/metadata.ts";
import { createKeywordEmbedder } from "../fixtures/keyword-embedder.ts";
import { makeTempDir, openTempGllam } from "../helpers.ts";

const dir = makeTempDir();
const T0 = Date.parse("2025-01-01T00:00:00Z");

/**
 * A small memory whose sleep cycle can be worked out by hand:
 *   Alice -maintains-> Billing API -uses (x11, each with a caveat)-> Postgres -is_a-> [Databases]
 *   Billing API -version_is-> v2.0 (trust 800), which beat v1.0 (trust 300): v1.0 -resolves_conflict-> v2.0
 *   Redis: no links, filed under the legacy branch /Legacy/Database, a synonym of /Infrastructure/Databases.
 *   Alice is uncategorized.
 */
async function handGraph(): Promise<Gllam> {
  const gllam = await openTempGllam(dir, { embedder: createKeywordEmbedder([["database"]]) });
  const node = (id: string, name: string, type: string, taxonomyPath = "/") => gllam.upsertNode({ id, name, type, taxonomyPath, isCategory: type === "category" });
  node("cat-db", "Databases", "category", "/Infrastructure/Databases");
  node("cat-relational", "Relational", "category", "/Infrastructure/Databases/Relational");
  node("cat-db-legacy", "Database", "category", "/Legacy/Database");
  node("api", "Billing API", "service", "/Infrastructure/Services");
  node("pg", "Postgres", "database", "/Infrastructure/Databases");
  node("redis", "Redis", "database", "/Legacy/Database/KeyValue");
  node("alice", "Alice", "person");
  node("v1", "v1.0", "version", "/Releases");
  node("v2", "v2.0", "version", "/Releases");
  gllam.addEdge({ sourceId: "pg", targetId: "cat-db", relationship: "is_a" });
  gllam.addEdge({ sourceId: "alice", targetId: "api", relationship: "maintains" });
  for (let i = 1; i <= 11; i++) gllam.addEdge({ sourceId: "api", targetId: "pg", relationship: "uses", caveats: `caveat ${i}` });
  gllam.addEdge({ sourceId: "api", targetId: "v1", relationship: "version_is", trustWeight: 300, validFrom: T0 });
  expect(gllam.addEdge({ sourceId: "api", targetId: "v2", relationship: "version_is", trustWeight: 800, validFrom: T0 }).action).toBe("superseded");
  return gllam;
}

// Clarity by hand: hop decay 1/(1 + 0.1 (hops - 1)), x0.9 per caveated link, x0.5 per conflict link;
// without a path, half the taxonomy overlap. Paths after the cycle (Redis moved to
// /Infrastructure/Databases/KeyValue, Alice filed under /Person):
const EXPECTED: Record<string, { hops: number; clarity: number; consistent: boolean }> = {
  "alice|api": { hops: 1, clarity: 1, consistent: true },
  "alice|pg": { hops: 2, clarity: (1 / 1.1) * 0.9, consistent: true }, // maintains, uses (caveat)
  "alice|v1": { hops: 3, clarity: (1 / 1.2) * 0.5, consistent: false }, // maintains, version_is, resolves_conflict
  "alice|v2": { hops: 2, clarity: 1 / 1.1, consistent: true },
  "api|pg": { hops: 1, clarity: 0.9, consistent: true },
  "api|v1": { hops: 2, clarity: (1 / 1.1) * 0.5, consistent: false },
  "api|v2": { hops: 1, clarity: 1, consistent: true },
  "pg|v1": { hops: 3, clarity: (1 / 1.2) * 0.9 * 0.5, consistent: false },
  "pg|v2": { hops: 2, clarity: (1 / 1.1) * 0.9, consistent: true },
  "v1|v2": { hops: 1, clarity: 0.5, consistent: false },
  // Redis has no links: 0.5 x overlap of /Infrastructure/Databases/KeyValue with the other's path.
  "alice|redis": { hops: 0, clarity: 0.5 * 0, consistent: true }, // /Person
  "api|redis": { hops: 0, clarity: 0.5 * (1 / 2), consistent: true }, // /Infrastructure/Services
  "pg|redis": { hops: 0, clarity: 0.5 * (2 / 2), consistent: true }, // /Infrastructure/Databases
  "redis|v1": { hops: 0, clarity: 0, consistent: true }, // /Releases
  "redis|v2": { hops: 0, clarity: 0, consistent: true },
};

describe("enterMemorySleepCycle", () => {
  test("report figures match the hand-worked graph", async () => {
    const gllam = await handGraph();
    const steps: string[] = [];
    const report = await gllam.enterMemorySleepCycle(50, { seed: 11, consolidation: { pauseMs: 0 }, onProgress: (step) => steps.push(step) });

    expect(report.errors).toEqual([]);
    expect([...new Set(steps)]).toEqual(["lexicon", "resume", "compact", "merge", "categorize", "cycles", "traces"]);
    // A scope under 50K episodes owes the episode lexicon nothing.
    expect(report.lexiconBlocks).toBe(0);
    // Billing API and Postgres each carry 11 caveated links (> 10): 5 stay inline, 6 go to the summary.
    expect(report.compactedHubs).toBe(2);
    expect(report.compactedRevisionsCount).toBe(12);
    expect(gllam.getNode("api")?.caveatSummary).toStartWith("6 more caveats (6 active, 0 ended)");
    // Database ~ Databases (same name): the smaller branch (legacy: 2 nodes vs 3) moves.
    expect(report.mergeCandidates.map((c) => [c.from.id, c.to.id, c.score])).toEqual([["cat-db-legacy", "cat-db", 1]]);
    expect(report.consolidations).toEqual([{ from: "/Legacy/Database", to: "/Infrastructure/Databases", score: 1, moved: 2 }]);
    expect(report.movedNodes).toBe(2);
    expect(gllam.getNode("redis")?.taxonomyPath).toBe("/Infrastructure/Databases/KeyValue");
    // Alice ("Alice (person)") is near no category: a /Person category is created for her.
    expect(report).toMatchObject({ categorizedCount: 1, createdCategories: 1, uncategorizedRemaining: 0, taxonomyCycles: [], resumedConsolidations: 0 });
    expect(gllam.getNode("alice")?.taxonomyPath).toBe("/Person");

    // 6 entities give 15 pairs; 50 asked for, so every pair is traced once.
    expect(report.traces).toHaveLength(15);
    for (const trace of report.traces) {
      const key = [trace.a.id, trace.b.id].toSorted().join("|");
      const want = EXPECTED[key]!;
      expect({ key, hops: trace.hops, consistent: trace.consistent }).toEqual({ key, hops: want.hops, consistent: want.consistent });
      expect(trace.clarity).toBeCloseTo(want.clarity, 10);
    }
    const clarities = Object.values(EXPECTED).map((e) => e.clarity);
    expect(report.memoryClarityScore!).toBeCloseTo(clarities.reduce((a, b) => a + b) / 15, 10);
    expect(report.memoryConsistencyScore!).toBeCloseTo(11 / 15, 10);
    const v1 = report.traces.find((t) => [t.a.id, t.b.id].toSorted().join("|") === "api|v1")!;
    expect(v1.issues).toEqual(["the path runs through resolves_conflict"]);
    expect(v1.answer).toMatch(/Billing API -\[version_is\]-> v2\.0 <-\[resolves_conflict\]- v1\.0|v1\.0 -\[resolves_conflict\]-> v2\.0 <-\[version_is\]- Billing API/);

    expect(readJob(gllam.dbRO(), report.jobId)).toMatchObject({ kind: "sleep_cycle", status: "done", state: { compactedRevisionsCount: 12, traceCount: 15 } });
    gllam.close();
  });

  test("the same seed samples the same traces; a second cycle finds nothing left to do", async () => {
    const [a, b] = [await handGraph(), await handGraph()];
    const options = { seed: 5, consolidation: { pauseMs: 0 } };
    const [ra, rb] = [await a.enterMemorySleepCycle(6, options), await b.enterMemorySleepCycle(6, options)];
    expect(ra.traces).toHaveLength(6);
    expect(rb.traces).toEqual(ra.traces);
    const again = await a.enterMemorySleepCycle(6, options);
    expect(again).toMatchObject({ consolidations: [], movedNodes: 0, categorizedCount: 0, createdCategories: 0 });
    expect(again.traces.map((t) => [t.a.id, t.b.id])).toEqual(ra.traces.map((t) => [t.a.id, t.b.id]));
    a.close();
    b.close();
  });

  test("a failing step is reported and the others still run", async () => {
    const gllam = await handGraph();
    // Vectors from another model: the steps that compare embeddings refuse (E_EMBEDDING_DRIFT) until a re-embed.
    writeMetadata(gllam.db(), "embedding_model_version", "another-model");
    const report = await gllam.enterMemorySleepCycle(3, { seed: 1 });
    expect(report.errors.map((e) => [e.step, e.code])).toEqual([
      ["merge", "E_EMBEDDING_DRIFT"],
      ["categorize", "E_EMBEDDING_DRIFT"],
    ]);
    expect(report.compactedRevisionsCount).toBe(12);
    expect(report.traces).toHaveLength(3);
    expect(readJob(gllam.dbRO(), report.jobId)?.status).toBe("failed");
    gllam.close();
  });
});
