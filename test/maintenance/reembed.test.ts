import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createHttpEmbedder } from "../../src/embed/http.ts";
import { createEmbedderFromSpec } from "../../src/embed/spec.ts";
import { Gllam } from "../../src/gllam/gllam.ts";
import { Store } from "../../src/engine/store.ts";
import { hashVector } from "../fixtures/hash-embedder.ts";
import { expectGllamError, makeTempDir, REPO_ROOT } from "../helpers.ts";

const dir = makeTempDir();
const hash = await createEmbedderFromSpec({ kind: "module", path: join(import.meta.dir, "../fixtures/hash-embedder.ts") });

/**
 * An OpenAI-compatible embeddings server (8 dimensions) that answers `answered` requests, then
 * fails (HTTP 500) or hangs, as told.
 */
function stubServer() {
  const control = { answered: Infinity, then: "fail" as "fail" | "hang", requests: 0, hung: Promise.withResolvers<void>() };
  const server = Bun.serve({
    port: 0,
    async fetch(request) {
      control.requests++;
      if (control.requests > control.answered) {
        if (control.then === "fail") return new Response("model crashed", { status: 500 });
        control.hung.resolve();
        return new Promise<Response>(() => {});
      }
      const { input } = (await request.json()) as { input: string[] };
      return Response.json({ data: input.map((text, index) => ({ index, embedding: [...hashVector(text).slice(0, 8)] })) });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/v1`, control, stop: () => server.stop(true) };
}

const turns = (n: number) => Array.from({ length: n }, (_, i) => ({ sessionId: `s${i % 4}`, seq: i, speaker: i % 2 ? "Ann" : "Bob", content: `turn ${i} about the ferry to Lisbon and topic ${i % 9}` }));

/** A memory whose vectors come from the hash model: nodes and episodes, both tiers. */
async function memoryWithVectors(name: string): Promise<string> {
  const path = join(dir, name);
  const gllam = await Gllam.open(path, { embedder: hash });
  ["Lisbon", "Ferry", "Tram", "Porto", "River"].forEach((city, i) => gllam.upsertNode({ id: `n${i}`, name: city, type: "place" }));
  gllam.addEpisodes(turns(200));
  await gllam.waitForEmbeddings();
  gllam.close();
  return path;
}

/** Vector counts per table, queues, staging and the running rebuild, and the model versions. */
async function tables(path: string) {
  const store = await Store.open(path, { readOnly: true });
  const db = store.dbRO();
  const n = (sql: string) => (db.query(sql).get() as { n: number }).n;
  const count = (table: string) => n(`SELECT count(*) AS n FROM ${table}`);
  const meta = (key: string) => (db.query("SELECT value FROM system_metadata WHERE key = ?").get(key) as { value: string } | null)?.value;
  const state = {
    model: meta("embedding_model_version"),
    dims: meta("embedding_dims"),
    staticModel: meta("static_model_version"),
    vectors: ["semantic_embeddings", "episode_vectors", "node_static_vectors", "episode_static_vectors"].map(count),
    queued: [count("episode_vector_queue"), count("node_vector_queue")],
    staged: count("node_vector_staging") + count("episode_vector_staging"),
    running: n("SELECT count(*) AS n FROM maintenance_jobs WHERE kind = 'reembed' AND status = 'running'"),
  };
  store.close();
  return state;
}

/** What recall answers with the hash model: episodes (with their vector ranks) and similar nodes. */
async function answers(path: string) {
  const gllam = await Gllam.open(path, { embedder: hash });
  const search = await gllam.searchEpisodes("ferry to Lisbon topic 3", { k: 5 });
  const result = { hits: search.hits.map((h) => [h.episodeId, h.denseRank, h.staticRank]), denseUsed: search.denseUsed, similar: (await gllam.searchSimilarNodes("Lisbon", 3)).map((s) => s.nodeId) };
  gllam.close();
  return result;
}

const observe = async (path: string) => ({ ...(await tables(path)), ...(await answers(path)) });

describe("reembed never drops vectors before the new ones exist", () => {
  test("an unreachable embeddings server changes nothing", async () => {
    const path = await memoryWithVectors("unreachable.db");
    const before = await observe(path);
    expect(before).toMatchObject({ model: "hash-16@test", dims: "16", vectors: [5, 200, 5, 200], queued: [0, 0], staged: 0, running: 0, denseUsed: true });
    const remote = await Gllam.open(path, { embedder: createHttpEmbedder({ url: "http://127.0.0.1:9" }) });
    await expectGllamError(remote.reembedAll(), "E_EMBEDDER_UNREACHABLE", /127\.0\.0\.1:9.* is unreachable.*\(nothing was changed\)/);
    remote.close();
    expect(await observe(path)).toEqual(before);
  });

  test("a server that fails halfway changes nothing; the next run resumes and swaps the new vectors in", async () => {
    const path = await memoryWithVectors("halfway.db");
    const before = await observe(path);
    const stub = stubServer();
    try {
      stub.control.answered = 3; // the probe, the nodes, one batch of episodes
      const remote = await Gllam.open(path, { embedder: createHttpEmbedder({ url: stub.url }) });
      await expectGllamError(remote.reembedAll(), "E_EMBEDDER_RESPONSE", /HTTP 500.*stored model vectors and their model are unchanged.*gllam reembed/);
      expect(await observe(path)).toEqual({ ...before, staged: 5 + 64, running: 1 });

      stub.control.answered = Infinity;
      stub.control.requests = 0;
      const report = await remote.reembedAll();
      expect(report).toMatchObject({ reset: true, resumed: true, previousModel: "hash-16@test", nodes: 0, episodes: 200 - 64 });
      // Only what was not staged was embedded again (the probe, then 136 episodes in 3 batches).
      expect(stub.control.requests).toBe(4);
      expect((await remote.searchEpisodes("ferry to Lisbon topic 3")).denseUsed).toBe(true);
      remote.close();
      const model = `http:127.0.0.1:${new URL(stub.url).port}/v1`;
      expect(await tables(path)).toEqual({ model, dims: "8", staticModel: before.staticModel, vectors: [5, 200, 5, 200], queued: [0, 0], staged: 0, running: 0 });
    } finally {
      stub.stop();
    }
  });

  test("a reembed killed midway leaves the old vectors; running it again resumes", async () => {
    const path = await memoryWithVectors("killed.db");
    const before = await observe(path);
    const stub = stubServer();
    const reembed = () =>
      Bun.spawn(["bun", join(REPO_ROOT, "src/cli/main.ts"), "reembed", "--db", path, "--embeddings-server", stub.url, "--workers", "1"], { env: process.env, stdout: "pipe", stderr: "pipe" });
    try {
      // The probe, the nodes, then the first half of the first episode batch (the pool sends 32 texts a request).
      stub.control.answered = 3;
      stub.control.then = "hang";
      const first = reembed();
      await stub.control.hung.promise;
      first.kill(9);
      await first.exited;
      expect(await observe(path)).toEqual({ ...before, staged: 5, running: 1 });

      stub.control.answered = Infinity;
      const second = reembed();
      const [out, err, code] = await Promise.all([new Response(second.stdout).text(), new Response(second.stderr).text(), second.exited]);
      expect(err).toBe("");
      expect(code).toBe(0);
      expect(out).toContain("resumed an interrupted re-embedding");
      expect(out).toMatch(/re-embedded everything \(hash-16@test -> http:127\.0\.0\.1:\d+\/v1\): 0 nodes, 200 episodes/);
      expect(await tables(path)).toMatchObject({ dims: "8", vectors: [5, 200, 5, 200], queued: [0, 0], staged: 0, running: 0 });
    } finally {
      stub.stop();
    }
  });

  test("a static-only rebuild (--force) swaps the static tier in one piece", async () => {
    const path = await memoryWithVectors("static.db");
    const gllam = await Gllam.open(path, { embedder: hash });
    const report = await gllam.reembedAll({ force: true });
    expect(report).toMatchObject({ reset: true, staticReset: true, staticNodes: 5, staticEpisodes: 200, nodes: 5, episodes: 200 });
    gllam.close();
    expect(await tables(path)).toMatchObject({ vectors: [5, 200, 5, 200], staged: 0, running: 0 });
  });
});
