/**
 * Embedders behind an HTTP server: OpenAI-compatible `/v1/embeddings` (vLLM, OpenRouter, llama.cpp
 * with --embeddings) and llama.cpp's native `/embedding`. No silent fallback: a server that does not
 * answer is an error naming its URL.
 */
import { FetchError, ofetch } from "ofetch";
import * as v from "valibot";
import { describeError, GllamError } from "../engine/errors.ts";
import { assertEmbeddableTexts, checkVectors, type Embedder } from "./embedder.ts";

export type HttpEmbedderOptions = {
  url: string;
  /** openai: POST {input, model} to /v1/embeddings; llama: POST {content} to /embedding; auto: decide by the URL. */
  api?: "auto" | "openai" | "llama";
  model?: string;
  apiKey?: string;
  timeoutMs?: number;
  batchSize?: number;
};

const VectorSchema = v.array(v.number());
const OpenAIResponseSchema = v.object({
  data: v.array(v.object({ embedding: VectorSchema, index: v.optional(v.number()) })),
});
/** llama.cpp answers {embedding} (old servers) or [{index, embedding}] with one vector or one per token. */
const LlamaItemSchema = v.object({ index: v.optional(v.number()), embedding: v.union([VectorSchema, v.array(VectorSchema)]) });
const LlamaResponseSchema = v.union([LlamaItemSchema, v.array(LlamaItemSchema)]);

type Endpoint = { api: "openai" | "llama"; url: string };

/** Where to POST, from the URL alone; undefined when only a probe can tell (a bare server address). */
export function endpointFromUrl(rawUrl: string, api: HttpEmbedderOptions["api"] = "auto"): Endpoint | undefined {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new GllamError("E_BAD_INPUT", `embeddings server URL is not a valid URL: ${rawUrl}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new GllamError("E_BAD_INPUT", `embeddings server URL must be http(s): ${rawUrl}`);
  }
  const base = url.href.replace(/\/+$/, "");
  const path = url.pathname.replace(/\/+$/, "");
  if (path.endsWith("/v1/embeddings")) return { api: "openai", url: base };
  if (path.endsWith("/v1")) return { api: "openai", url: `${base}/embeddings` };
  if (path.endsWith("/embedding") || path.endsWith("/embeddings")) return { api: api === "openai" ? "openai" : "llama", url: base };
  if (api === "openai") return { api, url: `${base}/v1/embeddings` };
  if (api === "llama") return { api, url: `${base}/embedding` };
  return undefined;
}

export function createHttpEmbedder(options: HttpEmbedderOptions): Embedder {
  const known = endpointFromUrl(options.url, options.api);
  const base = options.url.replace(/\/+$/, "");
  const batchSize = options.batchSize ?? 64;
  let endpoint: Endpoint | undefined = known;
  let dims = 0;

  async function post(target: Endpoint, texts: string[]): Promise<Float32Array[]> {
    const body = target.api === "openai" ? { input: texts, ...(options.model ? { model: options.model } : {}) } : { content: texts };
    let response: unknown;
    try {
      response = await ofetch(target.url, {
        method: "POST",
        body,
        retry: 0,
        timeout: options.timeoutMs ?? 30_000,
        headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
      });
    } catch (error) {
      throw toEmbedderError(target.url, error);
    }
    return parseVectors(target, response);
  }

  /** A bare server address: OpenAI-compatible first, llama.cpp's native endpoint if that is missing. */
  async function resolveEndpoint(texts: string[]): Promise<{ endpoint: Endpoint; vectors: Float32Array[] }> {
    const openai: Endpoint = { api: "openai", url: `${base}/v1/embeddings` };
    try {
      return { endpoint: openai, vectors: await post(openai, texts) };
    } catch (error) {
      if (!(error instanceof GllamError && error.cause === 404)) throw error;
    }
    const llama: Endpoint = { api: "llama", url: `${base}/embedding` };
    return { endpoint: llama, vectors: await post(llama, texts) };
  }

  return {
    modelVersion: `http:${options.model || base.replace(/^https?:\/\//, "")}`,
    spec: { kind: "http", ...options },
    get dims() {
      return dims;
    },
    async embed(texts: string[]): Promise<Float32Array[]> {
      assertEmbeddableTexts(texts);
      const vectors: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        const batch = texts.slice(i, i + batchSize);
        if (endpoint) {
          vectors.push(...(await post(endpoint, batch)));
        } else {
          const resolved = await resolveEndpoint(batch);
          endpoint = resolved.endpoint;
          vectors.push(...resolved.vectors);
        }
      }
      const got = checkVectors(vectors, texts.length, `embeddings server ${endpoint?.url ?? base}`);
      if (dims !== 0 && got !== 0 && got !== dims) {
        throw new GllamError("E_EMBEDDER_RESPONSE", `embeddings server ${endpoint?.url} changed dimension from ${dims} to ${got}`);
      }
      if (got !== 0) dims = got;
      return vectors;
    },
  };
}

function toEmbedderError(url: string, error: unknown): GllamError {
  if (error instanceof FetchError && error.status !== undefined) {
    const detail = typeof error.data === "string" ? error.data : JSON.stringify(error.data ?? "");
    return new GllamError("E_EMBEDDER_RESPONSE", `embeddings server ${url} answered HTTP ${error.status}: ${detail.slice(0, 200)}`, {
      cause: error.status,
    });
  }
  const reason = error instanceof FetchError && error.cause ? describeError(error.cause) : describeError(error);
  return new GllamError("E_EMBEDDER_UNREACHABLE", `embeddings server ${url} is unreachable: ${reason}`, { cause: error });
}

function parseVectors(target: Endpoint, response: unknown): Float32Array[] {
  const bad = (issues: v.BaseIssue<unknown>[]) =>
    new GllamError(
      "E_EMBEDDER_RESPONSE",
      `embeddings server ${target.url} answered with an unexpected body (${v.getDotPath(issues[0]!) ?? "body"}: ${issues[0]?.message})`,
    );
  if (target.api === "openai") {
    const parsed = v.safeParse(OpenAIResponseSchema, response);
    if (!parsed.success) throw bad(parsed.issues);
    return [...parsed.output.data]
      .sort((a, b) => (a.index ?? 0) - (b.index ?? 0))
      .map((item) => Float32Array.from(item.embedding));
  }
  const parsed = v.safeParse(LlamaResponseSchema, response);
  if (!parsed.success) throw bad(parsed.issues);
  const items = Array.isArray(parsed.output) ? [...parsed.output].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)) : [parsed.output];
  return items.map((item) => {
    if (!Array.isArray(item.embedding[0])) return Float32Array.from(item.embedding as number[]);
    const pooled = item.embedding as number[][];
    if (pooled.length !== 1) {
      throw new GllamError("E_EMBEDDER_RESPONSE", `embeddings server ${target.url} returned per-token vectors; start it with pooling (llama-server --pooling mean)`);
    }
    return Float32Array.from(pooled[0]!);
  });
}
