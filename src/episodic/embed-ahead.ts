/**
 * Static vectors on the second core: a worker (its own copy of the static table) embeds the next
 * chunk's episodes, and assigns them their cells when the tier has centroids, while the writer's
 * thread writes this chunk. At 1M episodes the static embedding was ~12% of an ingest's CPU and the
 * cell assignment ~8%, both on the writer's thread; it now only waits when the worker is behind.
 * It also tokenises the chunk's contents for the episode lexicon (term-numbers.ts), ~60% of a
 * lexicon block's inversion, which the writer's thread then only counts.
 * Same vectors, cells and lexicon rows (the same table and code); a worker that fails leaves the
 * work to the writer's thread (embed resolves undefined, no terms are known), so an ingest never
 * fails for it.
 */
import type { Database } from "bun:sqlite";
import { embeddedPath, isEmbeddedPath } from "../engine/embedded.ts";
import type { EmbedderSpec } from "../embed/embedder.ts";
import type { StaticEmbedder } from "../embed/static/static-embedder.ts";
import type { ParsedBatch } from "./episodes.ts";
import { tierCentroids, type Centroids } from "./episode-cells.ts";
import type { StaticAhead } from "./static-vectors.ts";
import { TermTranslation, type NumberedTexts } from "./lexicon/term-numbers.ts";

/**
 * A chunk: its episodes' contents and speakers (the worker embeds episodeEmbeddingText of the two,
 * and numbers the contents' lexicon terms, its numbering started over first when the writer's
 * thread lost track of it: restartTerms).
 */
export type AheadRequest =
  | { type: "init"; spec: EmbedderSpec }
  | { type: "chunk"; id: number; contents: string[]; speakers: string[]; centroids?: Centroids; restartTerms: boolean };
export type AheadReply = { type: "vectors"; id: number; dims: number; packed: Float32Array; cells?: Int32Array; terms: NumberedTexts } | { type: "error"; id: number; message: string };

export type EmbedAhead = {
  /** Sends the batches' episodes to the worker (before it returns); resolves undefined when the worker failed. */
  embed(db: Database, batches: ParsedBatch[]): Promise<StaticAhead | undefined>;
  /** Terminates the worker (its memory goes with it). */
  close(): Promise<void>;
  /** Chunks the worker answered, and those left to the writer's thread (it failed). */
  readonly answered: number;
  readonly failed: number;
};

/**
 * The worker's entry point. In the compiled binary, scripts/build.ts embeds it as an entry point of
 * its own, stored by its path below src/ as .js.
 */
const WORKER_ENTRY = isEmbeddedPath(import.meta.url) ? embeddedPath("episodic/static-ahead-worker.js") : new URL("./static-ahead-worker.ts", import.meta.url).href;

/** A worker for the static embedder, or undefined when it cannot be rebuilt in one (no spec). */
export function startEmbedAhead(embedder: StaticEmbedder): EmbedAhead | undefined {
  if (!embedder.spec) return undefined;
  const worker = new Worker(WORKER_ENTRY);
  worker.postMessage({ type: "init", spec: embedder.spec } satisfies AheadRequest);
  const waiting = new Map<number, (reply: AheadReply | undefined) => void>();
  worker.addEventListener("message", (event: MessageEvent<AheadReply>) => {
    waiting.get(event.data.id)?.(event.data);
    waiting.delete(event.data.id);
  });
  // A worker that exited answers nothing more: what waits, and what comes later, is the writer's.
  let exited = false;
  worker.addEventListener("close", () => {
    exited = true;
    for (const settle of waiting.values()) settle(undefined);
    waiting.clear();
  });
  // Referenced only while a chunk is out: an idle worker never keeps the process alive.
  worker.unref();
  const translation = new TermTranslation();
  let nextId = 1;
  let closed = false;
  let answered = 0;
  let failed = 0;
  return {
    get answered() {
      return answered;
    },
    get failed() {
      return failed;
    },
    embed(db, batches) {
      if (closed) return Promise.resolve(undefined);
      if (exited) {
        failed++;
        return Promise.resolve(undefined);
      }
      const id = nextId++;
      const contents = batches.flatMap((batch) => batch.episodes.map((episode) => episode.content));
      const speakers = batches.flatMap((batch) => batch.episodes.map((episode) => episode.speaker));
      const centroids = tierCentroids(db, "static");
      worker.ref();
      const reply = new Promise<AheadReply | undefined>((resolve) => waiting.set(id, resolve));
      worker.postMessage({ type: "chunk", id, contents, speakers, centroids, restartTerms: translation.lost } satisfies AheadRequest);
      return reply.then((answer) => {
        if (waiting.size === 0) worker.unref();
        if (answer?.type !== "vectors" || answer.packed.length !== contents.length * answer.dims) {
          failed++;
          return undefined;
        }
        answered++;
        const terms = translation.translate(contents, answer.terms);
        const vectors = Array.from({ length: contents.length }, (_, i) => answer.packed.subarray(i * answer.dims, (i + 1) * answer.dims));
        return { vectors, cells: centroids && answer.cells && { centroids, cells: answer.cells }, terms };
      });
    },
    close() {
      closed = true;
      if (exited) return Promise.resolve();
      const gone = new Promise<void>((resolve) => worker.addEventListener("close", () => resolve()));
      worker.terminate();
      return gone;
    },
  };
}
