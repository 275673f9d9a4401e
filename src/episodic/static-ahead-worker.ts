/**
 * The worker of embed-ahead.ts: the first message names the static table (the embedder's spec),
 * each later one a chunk's texts and, when the tier has them, its cells' centroids. It answers the
 * texts' static vectors (one buffer, transferred) and, with centroids, each vector's cell: the same
 * code the writer's thread would run (embedSync, cellOf), so the same values.
 */
import { describeError } from "../engine/errors.ts";
import { createEmbedderFromSpec } from "../embed/spec.ts";
import type { StaticEmbedder } from "../embed/static/static-embedder.ts";
import { assignCells } from "./episode-cells.ts";
import type { AheadReply, AheadRequest } from "./embed-ahead.ts";

declare const self: Worker;
let embedder: Promise<StaticEmbedder> | undefined;

self.onmessage = async (event: MessageEvent<AheadRequest>) => {
  const request = event.data;
  if (request.type === "init") {
    embedder = createEmbedderFromSpec(request.spec) as Promise<StaticEmbedder>;
    return;
  }
  let reply: AheadReply;
  try {
    if (!embedder) throw new Error("worker was not initialised");
    const { dims, embedSync } = await embedder;
    const vectors = embedSync(request.texts);
    const packed = new Float32Array(vectors.length * dims);
    vectors.forEach((vector, i) => packed.set(vector, i * dims));
    reply = { type: "vectors", id: request.id, dims, packed, cells: request.centroids && assignCells(request.centroids, vectors) };
  } catch (error) {
    reply = { type: "error", id: request.id, message: describeError(error) };
  }
  self.postMessage(reply, reply.type === "vectors" ? [reply.packed.buffer as ArrayBuffer] : []);
};
