/**
 * The worker of knn-beside.ts: the first message names the file (and the sqlite-vec library to
 * load), which it opens with a read handle of its own; each later one a static query's probed
 * cells, scanned by scanInt8Partitions over that handle (the code the calling thread runs, so the
 * same distances) for as long as the shared counter hands it cells, and answered as its k nearest
 * packed into two transferred arrays; or a prewarm (every cell of the large scopes), kept one chunk
 * at a time whenever no other message waits, and answered once done.
 */
import type { Database } from "bun:sqlite";
import { openSideReader } from "../engine/connections.ts";
import { describeError } from "../engine/errors.ts";
import { KEEPS, KNN_STATE, POSTED, type KnnReply, type KnnRequest } from "./knn-beside.ts";
import { prewarmInt8Partitions, scanInt8Partitions } from "./int8-scan.ts";
import { KeptChunks, mostlyKept } from "./kept-chunks.ts";

declare const self: Worker;
let db: Database | undefined;
let state: Int32Array | undefined;
let kept: KeptChunks | undefined;
/** Scans and closes received (the calling thread counts those it posted: POSTED). */
let received = 0;
/** A prewarm not finished yet: gone on with whenever nothing else waits (after each answer too). */
let prewarming: (Extract<KnnRequest, { type: "prewarm" }> & { next: number }) | undefined;

/** Whether the calling thread has posted a message this worker has not received yet. */
const messageWaits = () => Atomics.load(state!, POSTED) !== received;

/** Tells the calling thread the handle is closed (or was never opened): close() waits for it. */
function settleClosed(): void {
  db?.close();
  db = undefined;
  if (!state) return;
  Atomics.store(state, 0, KNN_STATE.closed);
  Atomics.notify(state, 0);
}

self.onmessage = (event: MessageEvent<KnnRequest>) => {
  const request = event.data;
  if (request.type === "open") {
    state = new Int32Array(request.state);
    // close() may have come first (before anything was opened): then nothing is.
    if (Atomics.compareExchange(state, 0, KNN_STATE.starting, KNN_STATE.opening) !== KNN_STATE.starting) return;
    try {
      db = openSideReader(request.path, request.vecPath);
      if (request.keepBytes > 0) kept = new KeptChunks(request.keepBytes);
      Atomics.store(state, 0, KNN_STATE.ready);
      self.postMessage({ type: "ready" } satisfies KnnReply);
    } catch (error) {
      settleClosed();
      self.postMessage({ type: "failed", message: describeError(error) } satisfies KnnReply);
    }
    return;
  }
  received++;
  if (request.type === "close") return settleClosed();
  if (request.type === "prewarm") {
    prewarming = { ...request, next: 0 };
    return goOnPrewarming();
  }
  let reply: KnnReply;
  try {
    if (!db) throw new Error("the KNN worker has no open database");
    const next = new Int32Array(request.next);
    const [keptBefore, readBefore] = [kept?.hits ?? 0, kept?.misses ?? 0];
    const hits = scanInt8Partitions(db, request.table, request.partitions, request.query, request.k, () => Atomics.add(next, 0, 1), kept);
    if (kept) Atomics.store(state!, KEEPS, mostlyKept(kept.hits - keptBefore, kept.misses - readBefore) ? 1 : 0);
    reply = { type: "hits", id: request.id, ids: Float64Array.from(hits, (hit) => hit.episodeId), distances: Float64Array.from(hits, (hit) => hit.distance) };
  } catch (error) {
    reply = { type: "error", id: request.id, message: describeError(error) };
  }
  self.postMessage(reply, (reply.type === "hits" ? [reply.ids.buffer, reply.distances.buffer] : []) as ArrayBuffer[]);
  // Answered: the chunks this scan read are kept now, and a prewarm goes on, until another message comes.
  kept?.keepWaiting(messageWaits);
  goOnPrewarming();
};

/**
 * Keeps the prewarm's chunks until a message waits (it goes on after that message), they are all
 * kept, or the room is full; then answers what is kept. A prewarm that kept every chunk sets
 * KEEPS: the next scans find theirs kept.
 */
function goOnPrewarming(): void {
  const job = prewarming;
  if (!job || !db) return;
  let reply: KnnReply;
  try {
    const progress = kept ? prewarmInt8Partitions(db, job.table, job.partitions, job.dims, kept, job.next, messageWaits) : { next: job.partitions.length, full: false };
    job.next = progress.next;
    if (!progress.full && progress.next < job.partitions.length) return;
    if (kept && !progress.full) Atomics.store(state!, KEEPS, 1);
    reply = { type: "prewarmed", id: job.id, chunks: kept?.chunks ?? 0, bytes: kept?.bytes ?? 0, full: progress.full };
  } catch (error) {
    reply = { type: "error", id: job.id, message: describeError(error) };
  }
  prewarming = undefined;
  self.postMessage(reply);
}
