/**
 * The worker of embed-ahead.ts: the first message names the static table (the embedder's spec),
 * each later one a chunk's contents and speakers and, when the tier has them, its cells' centroids. It answers the
 * texts' static vectors (one buffer, transferred) and, with centroids, each vector's cell: the same
 * code the writer's thread would run (embedSync, cellOf), so the same values; and the contents'
 * lexicon terms, numbered in its own numbering (numberTexts).
 */
import { describeError } from "../engine/errors.ts";
import { createEmbedderFromSpec } from "../embed/spec.ts";
import type { StaticEmbedder } from "../embed/static/static-embedder.ts";
import { assignCells } from "./episode-cells.ts";
import type { AheadReply, AheadRequest } from "./embed-ahead.ts";
import { numberTexts, TermNumbers } from "./lexicon/term-numbers.ts";
import { episodeEmbeddingText } from "./vectors.ts";

declare const self: Worker;
let embedder: Promise<StaticEmbedder> | undefined;
const numbering = new TermNumbers();

self.onmessage = async (event: MessageEvent<AheadRequest>) => {
  const request = event.data;
  if (request.type === "init") {
    embedder = createEmbedderFromSpec(request.spec) as Promise<StaticEmbedder>;
    // Each later message awaits it and answers its error; caught here too, or the rejection would
    // end the worker before a message comes (and it would be replaced, or waited for, forever).
    embedder.catch(() => {});
    return;
  }
  let reply: AheadReply;
  try {
    if (!embedder) throw new Error("worker was not initialised");
    const { dims, embedSync } = await embedder;
    const vectors = embedSync(request.contents.map((content, i) => episodeEmbeddingText({ speaker: request.speakers[i]!, content })));
    const packed = new Float32Array(vectors.length * dims);
    vectors.forEach((vector, i) => packed.set(vector, i * dims));
    const cells = request.centroids && assignCells(request.centroids, vectors);
    reply = { type: "vectors", id: request.id, dims, packed, cells, terms: numberTexts(numbering, request.contents, request.restartTerms) };
  } catch (error) {
    reply = { type: "error", id: request.id, message: describeError(error) };
  }
  const buffers = reply.type === "vectors" ? [reply.packed.buffer, reply.terms.numbers.buffer, reply.terms.offsets.buffer] : [];
  self.postMessage(reply, buffers as ArrayBuffer[]);
};
