import { afterAll, describe, expect, test } from "bun:test";
import type { GllamErrorCode } from "../../src/engine/errors.ts";
import { createHttpEmbedder, endpointFromUrl } from "../../src/embed/http.ts";
import { expectGllamError, localEmbedder, makeTempDir, openTempGllam } from "../helpers.ts";

/**
 * A stand-in embeddings server on 127.0.0.1 that serves real vectors from the bundled model,
 * speaking the OpenAI-compatible API, llama.cpp's native one, or both.
 */
function startServer(apis: ("openai" | "llama")[], override?: (path: string) => Response | undefined) {
  const requests: { path: string; body: unknown }[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const body = (await request.json()) as { input?: string | string[]; content?: string | string[] };
      requests.push({ path, body });
      const forced = override?.(path);
      if (forced) return forced;
      if (path === "/v1/embeddings" && apis.includes("openai")) {
        const texts = [body.input ?? []].flat();
        const vectors = await localEmbedder.embed(texts);
        // Reversed on purpose: clients must order by index, not by position.
        return Response.json({ model: "use-lite", data: vectors.map((v, index) => ({ index, embedding: [...v] })).reverse() });
      }
      if (path === "/embedding" && apis.includes("llama")) {
        const texts = [body.content ?? []].flat();
        const vectors = await localEmbedder.embed(texts);
        return Response.json(vectors.map((v, index) => ({ index, embedding: [[...v]] })));
      }
      return new Response("not found", { status: 404 });
    },
  });
  afterAll(() => server.stop(true));
  return { url: `http://127.0.0.1:${server.port}`, requests };
}

const texts = ["Caddy is a web server", "PostgreSQL stores the data"];

async function expectSameAsLocal(vectors: Float32Array[]) {
  const local = await localEmbedder.embed(texts);
  expect(vectors).toHaveLength(local.length);
  vectors.forEach((vector, i) => {
    expect(vector.length).toBe(512);
    for (let d = 0; d < 512; d += 37) expect(vector[d]).toBeCloseTo(local[i]![d]!, 5);
  });
}

describe("endpointFromUrl", () => {
  test.each([
    ["http://h:8080/v1/embeddings", "auto", { api: "openai", url: "http://h:8080/v1/embeddings" }],
    ["http://h:8080/v1", "auto", { api: "openai", url: "http://h:8080/v1/embeddings" }],
    ["http://h:8080/v1/", "auto", { api: "openai", url: "http://h:8080/v1/embeddings" }],
    ["http://h:8080/embedding", "auto", { api: "llama", url: "http://h:8080/embedding" }],
    ["http://h:8080", "llama", { api: "llama", url: "http://h:8080/embedding" }],
    ["http://h:8080", "openai", { api: "openai", url: "http://h:8080/v1/embeddings" }],
    ["http://h:8080", "auto", undefined],
  ] as const)("%s (%s)", (url, api, expected) => {
    expect(endpointFromUrl(url, api)).toEqual(expected);
  });

  test.each(["not a url", "ftp://h/v1"])("refuses %s", (url) => {
    expect(() => endpointFromUrl(url)).toThrow(/embeddings server URL/);
  });
});

describe("HTTP embedder", () => {
  const both = startServer(["openai", "llama"]);
  const llamaOnly = startServer(["llama"]);

  test("OpenAI-compatible /v1/embeddings gives the model's vectors in order", async () => {
    const embedder = createHttpEmbedder({ url: `${both.url}/v1`, model: "use-lite" });
    await expectSameAsLocal(await embedder.embed(texts));
    expect(embedder.dims).toBe(512);
    expect(embedder.modelVersion).toBe("http:use-lite");
    expect(both.requests.at(-1)).toEqual({ path: "/v1/embeddings", body: { input: texts, model: "use-lite" } });
  });

  test("llama.cpp /embedding gives the model's vectors", async () => {
    const embedder = createHttpEmbedder({ url: `${both.url}/embedding` });
    await expectSameAsLocal(await embedder.embed(texts));
    expect(both.requests.at(-1)?.path).toBe("/embedding");
  });

  test("a bare server address tries /v1/embeddings, then falls back to /embedding", async () => {
    const embedder = createHttpEmbedder({ url: llamaOnly.url });
    await expectSameAsLocal(await embedder.embed(texts));
    expect(llamaOnly.requests.map((r) => r.path)).toEqual(["/v1/embeddings", "/embedding"]);
    await embedder.embed(["again"]);
    expect(llamaOnly.requests.at(-1)?.path).toBe("/embedding");
  });

  test("an engine on an HTTP embedder stores and searches node vectors", async () => {
    const gllam = await openTempGllam(makeTempDir(), { embedder: createHttpEmbedder({ url: both.url }) });
    gllam.upsertNode({ id: "caddy", name: "Caddy", type: "service", contextPrompt: "Web server and reverse proxy" });
    gllam.upsertNode({ id: "pg", name: "PostgreSQL", type: "database", contextPrompt: "Relational database" });
    await gllam.storeNodeEmbeddings(["caddy", "pg"]);
    expect((await gllam.searchSimilarNodes("relational database", 2))[0]?.nodeId).toBe("pg");
    expect(gllam.stats().embeddingModel).toBe(`http:${both.url.replace("http://", "")}`);
    gllam.close();
  });
});

describe("HTTP embedder failures are clear errors naming the URL", () => {
  const broken = startServer(["openai"], (path) => {
    if (path === "/v1/embeddings") return undefined;
    if (path === "/fail/v1/embeddings") return new Response("model not loaded", { status: 500 });
    if (path === "/garbage/v1/embeddings") return Response.json({ data: [{ embedding: "oops" }] });
    if (path === "/short/v1/embeddings") return Response.json({ data: [{ index: 0, embedding: [0.1, 0.2] }] });
    if (path === "/tokens/embedding") return Response.json([{ index: 0, embedding: [[0.1], [0.2]] }]);
    return undefined;
  });

  async function closedPortUrl(): Promise<string> {
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const url = `http://127.0.0.1:${server.port}/v1`;
    await server.stop(true);
    return url;
  }

  const cases: { name: string; url: () => Promise<string> | string; texts: string[]; code: GllamErrorCode; message: RegExp }[] = [
    { name: "unreachable server", url: closedPortUrl, texts: ["x"], code: "E_EMBEDDER_UNREACHABLE", message: /127\.0\.0\.1:\d+\/v1\/embeddings is unreachable/ },
    { name: "HTTP 500", url: () => `${broken.url}/fail/v1`, texts: ["x"], code: "E_EMBEDDER_RESPONSE", message: /answered HTTP 500: model not loaded/ },
    { name: "a body of the wrong shape", url: () => `${broken.url}/garbage/v1`, texts: ["x"], code: "E_EMBEDDER_RESPONSE", message: /unexpected body \(data\.0\.embedding/ },
    { name: "fewer vectors than texts", url: () => `${broken.url}/short/v1`, texts: ["x", "y"], code: "E_EMBEDDER_RESPONSE", message: /returned 1 vectors for 2 texts/ },
    { name: "per-token vectors", url: () => `${broken.url}/tokens/embedding`, texts: ["x"], code: "E_EMBEDDER_RESPONSE", message: /--pooling/ },
  ];

  test.each(cases)("$name", async ({ url, texts: input, code, message }) => {
    const embedder = createHttpEmbedder({ url: await url(), timeoutMs: 5000 });
    await expectGllamError(embedder.embed(input), code, message);
  });
});
