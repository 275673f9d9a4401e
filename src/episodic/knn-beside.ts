/**
 * The static KNN of a scope with cells on the second core: a worker with its own read handle on the
 * store's file runs knnStaticEpisodes while the calling thread ranks BM25 (search-episodes.ts posts
 * the query before BM25 and awaits it after). At 1M episodes the two took ~14 and ~4-9 ms one after
 * the other on one core. Below the cells' threshold the scan takes ~1 ms, less than is worth a
 * message round trip, and it stays on the calling thread.
 *
 * Same answers: the worker runs the same code over the same file. Its read is a snapshot of its
 * own: under a concurrent write it may see a newer state of the file than the calling thread's
 * BM25 (as two statements of one recall on the calling thread may), and an episode forgotten in
 * between is left out when the hits are read (readEpisodes skips ids it does not find).
 *
 * Anything short of an answer leaves the KNN to the calling thread: a database in memory (no file
 * to open twice), a worker that cannot start or open the file, a job that fails, a worker that
 * dies. The worker starts on first need and answers from the query after it is ready (a fresh
 * process's one recall does not wait for it); the store's close closes its handle, then ends it.
 */
import { isMemoryPath } from "../engine/connections.ts";
import { embeddedPath, isEmbeddedPath } from "../engine/embedded.ts";
import type { Store } from "../engine/store.ts";
import { resolveVecExtension } from "../engine/vec-extension.ts";
import { scopeHasCells } from "./episode-cells.ts";
import type { EpisodeHit } from "./vectors.ts";

export type KnnRequest =
  | { type: "open"; path: string; vecPath: string; state: SharedArrayBuffer }
  | { type: "knn"; id: number; vector: Float32Array; k: number; scope: string }
  | { type: "close" };
export type KnnReply =
  | { type: "ready" }
  | { type: "failed"; message: string }
  | { type: "hits"; id: number; ids: Float64Array; distances: Float64Array }
  | { type: "error"; id: number; message: string };

/** The worker's read handle, in shared memory: close() takes starting to cancelled, or waits for open to become closed. */
export const KNN_STATE = { starting: 0, open: 1, closed: 2, cancelled: 3 } as const;
/** How long close() waits for the worker to close its handle (it finishes the job it holds first). */
const CLOSE_WAIT_MS = 5000;

export type KnnBeside = {
  /** The static KNN on the worker; undefined while it is not ready (or failed). Resolves undefined when the job failed. */
  knn(vector: Float32Array, k: number, scope: string): Promise<EpisodeHit[] | undefined> | undefined;
  /** Resolves once the worker has opened the file (true) or cannot (false). */
  readonly ready: Promise<boolean>;
  /** Closes the worker's handle (waiting for it), then ends the worker. */
  close(): void;
  /** Jobs the worker answered, and those left to the calling thread (it failed or died). */
  readonly answered: number;
  readonly failed: number;
};

/**
 * The worker's entry point. In the compiled binary, scripts/build.ts embeds it as an entry point of
 * its own, stored by its path below src/ as .js.
 */
const WORKER_ENTRY = isEmbeddedPath(import.meta.url) ? embeddedPath("episodic/static-knn-worker.js") : new URL("./static-knn-worker.ts", import.meta.url).href;

/** A worker on the file, or undefined when it cannot start. */
export function startKnnBeside(path: string): KnnBeside | undefined {
  let worker: Worker;
  try {
    worker = new Worker(WORKER_ENTRY);
  } catch {
    return undefined;
  }
  const state = new Int32Array(new SharedArrayBuffer(4));
  const waiting = new Map<number, (reply: KnnReply | undefined) => void>();
  let usable = false;
  let ended = false;
  let nextId = 1;
  let answered = 0;
  let failed = 0;
  let settleReady: (ok: boolean) => void = () => {};
  const ready = new Promise<boolean>((resolve) => (settleReady = resolve));
  // Referenced only while it opens the file or holds a job: an idle worker never keeps the process
  // alive, and a busy one is never unreferenced (Bun's event loop spins a core while an
  // unreferenced worker runs: README, "The model tier's worker pool").
  const idle = () => {
    if (waiting.size === 0) worker.unref();
  };
  const fail = () => {
    usable = false;
    settleReady(false);
    for (const settle of waiting.values()) settle(undefined);
    waiting.clear();
    if (!ended) worker.unref();
  };
  worker.addEventListener("message", (event: MessageEvent<KnnReply>) => {
    const reply = event.data;
    if (reply.type === "ready" || reply.type === "failed") {
      usable = reply.type === "ready" && !ended;
      settleReady(usable);
      idle();
      return;
    }
    waiting.get(reply.id)?.(reply);
    waiting.delete(reply.id);
    idle();
  });
  worker.addEventListener("error", fail);
  worker.addEventListener("close", () => {
    ended = true;
    fail();
  });
  worker.ref();
  resolveVecExtension().then(
    (vecPath) => worker.postMessage({ type: "open", path, vecPath, state: state.buffer as SharedArrayBuffer } satisfies KnnRequest),
    fail,
  );
  return {
    ready,
    get answered() {
      return answered;
    },
    get failed() {
      return failed;
    },
    knn(vector, k, scope) {
      if (!usable) return undefined;
      const id = nextId++;
      const reply = new Promise<KnnReply | undefined>((resolve) => waiting.set(id, resolve));
      worker.ref();
      worker.postMessage({ type: "knn", id, vector, k, scope } satisfies KnnRequest);
      return reply.then((answer) => {
        if (answer?.type !== "hits") {
          failed++;
          return undefined;
        }
        answered++;
        return Array.from(answer.ids, (episodeId, i) => ({ episodeId, distance: answer.distances[i]! }));
      });
    },
    close() {
      if (ended) return;
      usable = false;
      // Nothing opened yet: the worker will open nothing. Otherwise its handle closes before the
      // store's do (a job in hand is finished first).
      if (Atomics.compareExchange(state, 0, KNN_STATE.starting, KNN_STATE.cancelled) === KNN_STATE.open) {
        worker.postMessage({ type: "close" } satisfies KnnRequest);
        Atomics.wait(state, 0, KNN_STATE.open, CLOSE_WAIT_MS);
      }
      ended = true;
      fail();
      worker.terminate();
    },
  };
}

/** Each file store's worker (null: it could not start), made on first need and closed with the store. */
const besides = new WeakMap<Store, KnnBeside | null>();

/** The store's KNN worker, started on first call; undefined for a database in memory or when it cannot start. */
export function knnBesideOf(store: Store): KnnBeside | undefined {
  if (isMemoryPath(store.path)) return undefined;
  let beside = besides.get(store);
  if (beside === undefined) {
    beside = startKnnBeside(store.path) ?? null;
    besides.set(store, beside);
    if (beside) store.onClose(() => beside!.close());
  }
  return beside ?? undefined;
}

/**
 * The static KNN of a scope with cells, posted to the store's worker: resolves to its hits, or to
 * undefined when the worker failed. Undefined (nothing posted) where the calling thread should run
 * it: no cells in the scope, a database in memory, the worker not ready or not available.
 */
export function postStaticKnn(store: Store, vector: Float32Array, k: number, scope: string): Promise<EpisodeHit[] | undefined> | undefined {
  if (isMemoryPath(store.path) || !scopeHasCells(store.dbRO(), "static", scope)) return undefined;
  return knnBesideOf(store)?.knn(vector, k, scope);
}
