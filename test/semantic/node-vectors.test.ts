import { beforeAll, describe, expect, test } from "bun:test";
import type { Embedder } from "../../src/embed/embedder.ts";
import { Gllam } from "../../src/gllam/gllam.ts";
import { nodeEmbeddingText } from "../../src/semantic/node-text.ts";
import { expectGllamError, makeTempDir, openTempGllam } from "../helpers.ts";

const dir = makeTempDir();
let gllam: Gllam;

beforeAll(async () => {
  gllam = await openTempGllam(dir);
  await gllam.seedSampleMemory();
  return () => gllam.close();
});

describe("nodeEmbeddingText", () => {
  test.each([
    [{ name: "Caddy", type: "service", contextPrompt: "Web server.", aliases: [] }, "Caddy (service): Web server."],
    [{ name: "Caddy", type: "service", contextPrompt: "  ", aliases: ["caddy2", "cdy"] }, "Caddy (service) Also called caddy2, cdy."],
  ])("%j", (node, text) => expect(nodeEmbeddingText(node)).toBe(text));
});

describe("searchSimilarNodes (vec0 KNN over the sample memory)", () => {
  // Hand-checked: each query describes one sample node in words that are not its name.
  test.each([
    ["web server", "caddy"],
    ["relational database", "postgres"],
    ["private mesh VPN", "tailscale"],
    ["container runtime", "docker"],
    ["TLS certificate authority", "letsencrypt"],
    ["git repositories", "gitea"],
    ["in-memory cache", "redis"],
    ["time-series metrics and alerting", "prometheus"],
  ])("%s -> %s first", async (query, expected) => {
    const results = await gllam.searchSimilarNodes(query, 5);
    expect(results[0]?.nodeId).toBe(expected);
    expect(results).toHaveLength(5);
    const distances = results.map((r) => r.distance);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
  });

  test("stays inside the scope's partition", async () => {
    const other = await openTempGllam(dir);
    other.upsertNode({ id: "a-caddy", name: "Caddy", type: "service", contextPrompt: "Web server", scope: "alice" });
    other.upsertNode({ id: "b-pg", name: "PostgreSQL", type: "database", scope: "bob" });
    await other.storeNodeEmbeddings(["a-caddy"], { scope: "alice" });
    await other.storeNodeEmbeddings(["b-pg"], { scope: "bob" });
    expect((await other.searchSimilarNodes("web server", 5, { scope: "bob" })).map((r) => r.nodeId)).toEqual(["b-pg"]);
    expect(await other.searchSimilarNodes("web server", 5)).toEqual([]);
    other.close();
  });

  test("records the model version and refuses vectors from another model", async () => {
    expect(gllam.stats()).toMatchObject({ embeddingModel: gllam.embedder.modelVersion, embeddingDims: 512 });
    const impostor: Embedder = { modelVersion: "other-model", dims: 512, embed: async (texts) => texts.map(() => new Float32Array(512).fill(0.1)) };
    const drifted = await Gllam.open(gllam.path, { embedder: impostor });
    expect(drifted.checkEmbeddingModelVersion()).toEqual({ drift: true, previousModel: gllam.embedder.modelVersion, activeModel: "other-model" });
    for (const attempt of [() => drifted.searchSimilarNodes("web server"), () => drifted.storeNodeEmbedding("caddy")]) {
      await expectGllamError(attempt, "E_EMBEDDING_DRIFT", /stored vectors come from use-lite/);
    }
    drifted.close();
  });

  test("refuses unknown nodes and bad limits", async () => {
    await expectGllamError(gllam.storeNodeEmbedding("nobody"), "E_NOT_FOUND", /no node nobody/);
    await expectGllamError(gllam.searchSimilarNodes("x", 0), "E_BAD_INPUT", /limit must be an integer/);
  });
});
