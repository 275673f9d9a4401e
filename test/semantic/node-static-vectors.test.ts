import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadStaticEmbedder } from "../../src/embed/static/bundled-table.ts";
import { createEmbedderFromSpec } from "../../src/embed/spec.ts";
import { Gllam } from "../../src/gllam/gllam.ts";
import { hashVector } from "../fixtures/hash-embedder.ts";
import { makeTempDir, openTempGllam, runGllam } from "../helpers.ts";
import { failingStaticEmbedder } from "../static-table.ts";

const dir = makeTempDir();
const hash = await createEmbedderFromSpec({ kind: "module", path: join(import.meta.dir, "../fixtures/hash-embedder.ts") });
const staticEmbedder = loadStaticEmbedder();

const count = (gllam: Gllam, sql: string, ...params: string[]) => (gllam.dbRO().query(sql).get(...params) as { n: number }).n;
const staticVectorOf = (gllam: Gllam, id: string) => {
  const row = gllam.dbRO().query("SELECT vec_to_json(embedding) AS json FROM node_static_vectors WHERE node_id = ?").get(id) as { json: string } | null;
  return row && Float32Array.from(JSON.parse(row.json) as number[]);
};
const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0) / (Math.hypot(...a) * Math.hypot(...b));

describe("node vectors kept at write", () => {
  test("a node from `fact add` is found by recall and searchSimilarNodes without reembed", async () => {
    const db = join(dir, "facts.db");
    const added = runGllam(["fact", "add", "Zanzibar ferry", "departs_from", "Stone Town", "--db", db]);
    expect(added.stderr).toBe("");
    runGllam(["fact", "add", "Kilimanjaro", "is_in", "Tanzania", "--db", db]);
    const recalled = JSON.parse(runGllam(["recall", "ferry to Zanzibar", "--json", "--db", db]).stdout);
    expect(recalled.similar[0]).toMatchObject({ nodeId: "zanzibar-ferry" });
    expect(recalled.focus[0]).toMatchObject({ matchedBy: "similarity", node: { id: "zanzibar-ferry" } });

    const gllam = await Gllam.open(db, { embedder: hash });
    expect((await gllam.searchSimilarNodes("Stone Town", 2))[0]!.nodeId).toBe("stone-town");
    // Queued for the model tier too: the worker pool gives them model vectors.
    expect(count(gllam, "SELECT count(*) AS n FROM node_vector_queue WHERE tier = 'model'")).toBe(4);
    expect(await gllam.waitForEmbeddings()).toBe(4);
    expect(count(gllam, "SELECT count(*) AS n FROM semantic_embeddings")).toBe(4);
    gllam.close();
  });

  test("a renamed node's vectors follow its new text in both tiers", async () => {
    const gllam = await openTempGllam(dir, { embedder: hash });
    gllam.upsertNode({ id: "boat", name: "Ferry", type: "vehicle" });
    await gllam.waitForEmbeddings();
    gllam.upsertNode({ id: "boat", name: "Catamaran" });
    expect(cosine(staticVectorOf(gllam, "boat")!, staticEmbedder.embedSync(["Catamaran (vehicle)"])[0]!)).toBeGreaterThan(0.999);
    // The stale model vector is gone until the filler writes the new one.
    expect(count(gllam, "SELECT count(*) AS n FROM semantic_embeddings")).toBe(0);
    expect((await gllam.searchSimilarNodes("Catamaran", 1))[0]!.nodeId).toBe("boat");
    await gllam.waitForEmbeddings();
    const stored = gllam.dbRO().query("SELECT embedding FROM semantic_embeddings WHERE node_id = 'boat'").get() as { embedding: Uint8Array };
    expect([...new Float32Array(Uint8Array.from(stored.embedding).buffer)]).toEqual([...hashVector("Catamaran (vehicle)")]);
    // A change to a field that is not embedded queues nothing.
    gllam.upsertNode({ id: "boat", name: "Catamaran", taxonomyPath: "/Transport" });
    expect(count(gllam, "SELECT count(*) AS n FROM node_vector_queue")).toBe(0);
    gllam.close();
  });

  test("nodes waiting for a model vector are ranked by their static one; with every model vector in, results are the model tier's", async () => {
    const gllam = await openTempGllam(dir, { embedder: hash });
    const names = ["Lisbon tram", "Porto bridge", "Madrid museum", "Seville tower", "Bilbao river", "Granada palace"];
    names.forEach((name, i) => gllam.upsertNode({ id: `n${i}`, name }));
    await gllam.waitForEmbeddings();
    gllam.upsertNode({ id: "ferry", name: "Zanzibar ferry" });
    const hits = await gllam.searchSimilarNodes("Zanzibar ferry", 3);
    expect(hits[0]!.nodeId).toBe("ferry");
    expect(hits).toHaveLength(3);

    await gllam.waitForEmbeddings();
    const modelOnly = await Gllam.open(gllam.path, { embedder: hash, staticEmbedder: null });
    for (const query of ["Zanzibar ferry", "tram", "palace in Granada"]) {
      expect(await gllam.searchSimilarNodes(query, 4)).toEqual(await modelOnly.searchSimilarNodes(query, 4));
    }
    modelOnly.close();
    gllam.close();
  });

  test("merges and disambiguation give the nodes they change or create static vectors in the same transaction", async () => {
    const gllam = await openTempGllam(dir, { embedder: hash });
    gllam.upsertNode({ id: "nyc", name: "NYC" });
    gllam.upsertNode({ id: "new-york", name: "New York City" });
    gllam.mergeNodes("new-york", "nyc");
    expect(cosine(staticVectorOf(gllam, "new-york")!, staticEmbedder.embedSync(["New York City (entity) Also called NYC."])[0]!)).toBeGreaterThan(0.999);
    expect(staticVectorOf(gllam, "nyc")).toBeNull();
    const sense = gllam.disambiguateEntityForSource("new-york", "the band");
    expect(staticVectorOf(gllam, sense.nodeId)).not.toBeNull();
    expect(count(gllam, "SELECT count(*) AS n FROM node_vector_queue WHERE tier = 'static'")).toBe(0);
    gllam.close();
  });

  test("without a static tier nodes wait in the queue; reembed gives them their static vectors", async () => {
    const path = join(dir, "later.db");
    const without = await Gllam.open(path, { embedder: hash, staticEmbedder: null });
    without.upsertNode({ id: "a", name: "Alpha" });
    without.addEpisodes([{ sessionId: "s", seq: 0, content: "Alpha starts" }]);
    without.close();
    const later = await Gllam.open(path, { embedder: hash });
    expect(await later.reembedAll()).toMatchObject({ staticNodes: 1, staticEpisodes: 1, nodes: 1, episodes: 1 });
    expect(staticVectorOf(later, "a")).not.toBeNull();
    later.close();
  });

  test("a static embedder that fails takes the node write back with it", async () => {
    const gllam = await openTempGllam(dir, { embedder: hash, staticEmbedder: failingStaticEmbedder(staticEmbedder) });
    expect(() => gllam.upsertNode({ id: "a", name: "Alpha" })).toThrow("boom");
    expect(gllam.getNode("a")).toBeUndefined();
    gllam.close();
  });
});
