/**
 * A Bun Worker that embeds texts for the worker pool: the first message carries the embedder spec,
 * every later one a batch. Vectors go back as transferable buffers.
 */
import { describeError, isGllamError } from "../engine/errors.ts";
import type { Embedder } from "./embedder.ts";
import type { WorkerReply, WorkerRequest } from "./worker-protocol.ts";
import { createEmbedderFromSpec } from "./spec.ts";

declare const self: Worker;
let embedder: Promise<Embedder> | undefined;

self.onmessage = async (event: MessageEvent<WorkerRequest>) => {
  const request = event.data;
  if (request.type === "init") {
    embedder = createEmbedderFromSpec(request.spec);
    // Each later message awaits it and answers its error; caught here too, or the rejection would
    // end the worker before a message comes (and it would be replaced, or waited for, forever).
    embedder.catch(() => {});
    return;
  }
  let reply: WorkerReply;
  try {
    if (!embedder) throw new Error("worker was not initialised");
    const vectors = await (await embedder).embed(request.texts);
    reply = { type: "vectors", id: request.id, vectors, modelVersion: (await embedder).modelVersion };
  } catch (error) {
    reply = { type: "error", id: request.id, message: describeError(error), ...(isGllamError(error) && { code: error.code }) };
  }
  self.postMessage(reply, reply.type === "vectors" ? reply.vectors.map((v) => v.buffer as ArrayBuffer) : []);
};
