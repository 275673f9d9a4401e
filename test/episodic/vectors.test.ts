import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createEmbedderFromSpec } from "../../src/embed/spec.ts";
import { episodeEmbeddingText, MAX_EMBED_CHARS } from "../../src/episodic/vectors.ts";
import { hashVector } from "../fixtures/hash-embedder.ts";
import { makeTempDir, openTempGllam } from "../helpers.ts";

const dir = makeTempDir();
const v1 = await createEmbedderFromSpec({ kind: "module", path: join(import.meta.dir, "../fixtures/hash-embedder.ts") });
const v2 = await createEmbedderFromSpec({ kind: "module", path: join(import.meta.dir, "../fixtures/hash-embedder-v2.ts") });

const turns = (n: number, prefix = "turn") => Array.from({ length: n }, (_, i) => ({ sessionId: `s${i % 7}`, seq: i, speaker: i % 2 ? "Ann" : "Bob", content: `${prefix} ${i} about topic ${i % 13}` }));
const vectorCount = (gllam: Awaited<ReturnType<typeof openTempGllam>>) => (gllam.db().query("SELECT count(*) AS n FROM episode_vectors").get() as { n: number }).n;

describe("episode vectors", () => {
  test("what an episode is embedded as: speaker and text, long texts cut", () => {
    expect(episodeEmbeddingText({ speaker: "Ann", content: "hi" })).toBe("Ann: hi");
    expect(episodeEmbeddingText({ speaker: "", content: "x".repeat(5000) })).toHaveLength(MAX_EMBED_CHARS);
  });

  test("the worker pool fills every queued episode with the same vectors as in-thread embedding", async () => {
    const gllam = await openTempGllam(dir, { embedder: v1 });
    gllam.addEpisodes(turns(300));
    expect(gllam.countUnembedded()).toBe(300);
    gllam.startEmbeddingWorkerPool(2, 20);
    expect(await gllam.waitForEmbeddings()).toBe(300);
    expect(gllam.countUnembedded()).toBe(0);
    expect(vectorCount(gllam)).toBe(300);
    const row = gllam.db().query("SELECT e.speaker, e.content, v.embedding FROM episodes e JOIN episode_vectors v ON v.episode_id = e.id WHERE e.seq = 17").get() as { speaker: string; content: string; embedding: Uint8Array };
    expect([...new Float32Array(row.embedding.buffer.slice(row.embedding.byteOffset, row.embedding.byteOffset + row.embedding.byteLength))]).toEqual([...hashVector(`${row.speaker}: ${row.content}`)]);
    // Later episodes are picked up by the running pool.
    gllam.addEpisodes(turns(5, "late"));
    expect(await gllam.waitForEmbeddings()).toBe(305);
    gllam.close();
  });

  test("the pool survives a worker crash mid-ingest and still embeds everything", async () => {
    const gllam = await openTempGllam(dir, { embedder: v1 });
    gllam.addEpisodes([...turns(50), { sessionId: "c", seq: 0, content: `CRASH@${dir} here` }]);
    gllam.startEmbeddingWorkerPool(2, 20);
    await gllam.waitForEmbeddings();
    expect(gllam.countUnembedded()).toBe(0);
    expect(vectorCount(gllam)).toBe(51);
    gllam.close();
  });

  test("processUnembeddedBatch embeds on this thread, oldest first", async () => {
    const gllam = await openTempGllam(dir, { embedder: v1 });
    gllam.addEpisodes(turns(10));
    expect(await gllam.processUnembeddedBatch(4)).toBe(4);
    expect(gllam.countUnembedded()).toBe(6);
    gllam.close();
  });

  test("a model change: search falls back to words, reembedAll rebuilds nodes and episodes in the new space", async () => {
    const path = join(dir, "drift.db");
    const { Gllam } = await import("../../src/gllam/gllam.ts");
    const before = await Gllam.open(path, { embedder: v1 });
    before.upsertNode({ id: "lisbon", name: "Lisbon", type: "location" });
    await before.storeNodeEmbedding("lisbon");
    before.addEpisodes([{ sessionId: "s", seq: 0, content: "We took the tram in Lisbon" }, ...turns(20)]);
    await before.waitForEmbeddings();
    before.close();

    const after = await Gllam.open(path, { embedder: v2 });
    expect(after.checkEmbeddingModelVersion()).toMatchObject({ drift: true, previousModel: "hash-16@test" });
    const lexical = await after.searchEpisodes("tram Lisbon");
    expect(lexical.denseUsed).toBe(false);
    expect(lexical.hits[0]!.content).toBe("We took the tram in Lisbon");

    const report = await after.reembedAll();
    expect(report).toMatchObject({ reset: true, previousModel: "hash-16@test", model: "hash-8@test-v2", nodes: 1, episodes: 21 });
    expect(after.checkEmbeddingModelVersion().drift).toBe(false);
    expect(after.stats().embeddingDims).toBe(8);
    expect((await after.searchEpisodes("tram Lisbon")).denseUsed).toBe(true);
    // Nothing left to do: a second run only fills gaps, and there are none.
    expect(await after.reembedAll()).toMatchObject({ reset: false, nodes: 0, episodes: 0 });
    after.close();
  });
});
