/**
 * The static KNN of a scope with cells, on both cores: a worker with its own read handle on the
 * store's file starts scanning the query's probed cells while the calling thread ranks BM25
 * (search-episodes.ts posts it before BM25); after BM25 the calling thread scans the cells the
 * worker has not taken yet (a shared counter hands each cell to one thread), then merges the two
 * lists. At 1M episodes BM25 (~5-9 ms) and the KNN (~12-14 ms) ran one after the other on one core.
 * Below the cells' threshold the scan takes ~1 ms, less than is worth a message round trip, and it
 * stays on the calling thread. The worker keeps the chunks it reads (kept-chunks.ts, up to the
 * store's knnCacheBytes) once it has answered, until the next message comes (POSTED). Once it
 * finds most of a query's chunks kept it scans them several times faster than the calling thread
 * reads them, and the calling thread leaves it the cells (KEEPS).
 *
 * Same answers: the same scan code over the same file, and the k nearest of the two threads' k
 * nearest are those of one scan (mergeNearest). Each thread reads in a snapshot of its own: under
 * a concurrent write the worker may see a newer state of the file than the calling thread (as two
 * statements of one recall on the calling thread may), and an episode forgotten in between is left
 * out when the hits are read (readEpisodes skips ids it does not find).
 *
 * Anything short of an answer leaves the KNN to the calling thread: a database in memory (no file
 * to open twice), a worker that cannot start or open the file, a job that fails, a worker that
 * dies. The worker starts on first need and takes cells from the query after it is ready (a fresh
 * process's one recall does not wait for it); the store's close closes its handle, then ends it.
 */
import { isMemoryPath } from "../engine/connections.ts";
import { embeddedPath, isEmbeddedPath } from "../engine/embedded.ts";
import type { Store } from "../engine/store.ts";
import { resolveVecExtension } from "../engine/vec-extension.ts";
import { toInt8Vector } from "../embed/static/static-embedder.ts";
import { allStaticCells, probedStaticCells } from "./episode-cells.ts";
import { mergeNearest, scanInt8Partitions } from "./int8-scan.ts";
import type { EpisodeHit } from "./vectors.ts";

export type KnnRequest =
  | { type: "open"; path: string; vecPath: string; state: SharedArrayBuffer; keepBytes: number }
  /** Scan the partitions the shared counter (an Int32Array over `next`) hands out, keep the k nearest. */
  | { type: "scan"; id: number; table: string; partitions: [string, number][]; query: Int8Array; k: number; next: SharedArrayBuffer }
  /** Keep the partitions' chunks (int8 vectors of `dims` dimensions) while idle, until all are kept or the room is full. */
  | { type: "prewarm"; id: number; table: string; dims: number; partitions: [string, number][] }
  | { type: "close" };
export type KnnReply =
  | { type: "ready" }
  | { type: "failed"; message: string }
  | { type: "hits"; id: number; ids: Float64Array; distances: Float64Array }
  | { type: "prewarmed"; id: number; chunks: number; bytes: number; full: boolean }
  | { type: "error"; id: number; message: string };

/** What a prewarm left kept: the worker's chunks and their bytes, and whether its room filled before every chunk was kept. */
export type KeptChunksReport = { chunks: number; bytes: number; full: boolean };

/**
 * The worker's read handle, in shared memory: the calling thread sees it ready without waiting for
 * the worker's message (a loop of recalls that never yields to the event loop would not get it),
 * and close() takes starting to cancelled, or waits for opening or ready to become closed.
 */
export const KNN_STATE = { starting: 0, opening: 1, ready: 2, closed: 3, cancelled: 4 } as const;
/**
 * state[KEEPS]: 1 while the worker's last scan found most of its chunks kept (mostlyKept): it then
 * scans a cell several times faster than the calling thread reads one, and finish() leaves the
 * cells to it once it has taken one. (After a write, the chunks it changed are read again: one a
 * turn, in an agent's loop.)
 */
export const KEEPS = 1;
/**
 * state[POSTED]: the messages posted to the worker since it opened the file. After answering, the
 * worker keeps the chunks it read (KeptChunks.keepWaiting) while it has received them all, so a
 * scan posted meanwhile waits for one chunk's keeping at most (~0.4 ms).
 */
export const POSTED = 2;
/** How long close() waits for the worker to close its handle (it finishes the job it holds first). */
const CLOSE_WAIT_MS = 5000;

export type KnnBeside = {
  /**
   * Posts a scan of the cells the counter `next` hands out (every one, when nothing else takes
   * them); undefined while the worker is not ready (or failed). Resolves to the k nearest of the
   * cells it took, or undefined when the job failed.
   */
  scan(table: string, partitions: [string, number][], query: Int8Array, k: number, next: Int32Array): Promise<EpisodeHit[] | undefined> | undefined;
  /**
   * Keeps the partitions' chunks (int8 vectors of `dims` dimensions) in the worker's memory ahead of
   * the scans that read them, while it has nothing else to do (a scan posted meanwhile comes first),
   * until every one is kept or its room (keepBytes) is full: nothing kept is let go for it. Resolves
   * to what is then kept, or undefined when the worker cannot (not ready, failed or closed). One at a
   * time: a second call while one runs gets the first one's answer.
   */
  prewarm(table: string, dims: number, partitions: [string, number][]): Promise<KeptChunksReport | undefined>;
  /** Whether the worker's last scan found most of its chunks kept (KEEPS), or its prewarm kept every chunk asked. */
  readonly keepsChunks: boolean;
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

/** A worker on the file keeping up to keepBytes of cell vectors (kept-chunks.ts), or undefined when it cannot start. */
export function startKnnBeside(path: string, keepBytes = 0): KnnBeside | undefined {
  let worker: Worker;
  try {
    worker = new Worker(WORKER_ENTRY);
  } catch {
    return undefined;
  }
  // [0]: KNN_STATE; [KEEPS]; [POSTED].
  const state = new Int32Array(new SharedArrayBuffer(12));
  const post = (request: KnnRequest) => {
    Atomics.add(state, POSTED, 1);
    worker.postMessage(request);
  };
  const waiting = new Map<number, (reply: KnnReply | undefined) => void>();
  // broken: the worker failed or exited (nothing more is posted to it); exited: it is gone; closed: close() ran.
  let broken = false;
  let exited = false;
  let closed = false;
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
    broken = true;
    settleReady(false);
    for (const settle of waiting.values()) settle(undefined);
    waiting.clear();
    worker.unref();
  };
  worker.addEventListener("message", (event: MessageEvent<KnnReply>) => {
    const reply = event.data;
    if (reply.type === "ready" || reply.type === "failed") {
      settleReady(reply.type === "ready" && !broken && !closed);
      idle();
      return;
    }
    waiting.get(reply.id)?.(reply);
    waiting.delete(reply.id);
    idle();
  });
  worker.addEventListener("error", fail);
  worker.addEventListener("close", () => {
    exited = true;
    fail();
  });
  /** Posts a job (made with its id) and resolves to the worker's answer (undefined if none comes). */
  const ask = (request: (id: number) => KnnRequest) => {
    const id = nextId++;
    const reply = new Promise<KnnReply | undefined>((resolve) => waiting.set(id, resolve));
    worker.ref();
    post(request(id));
    return reply;
  };
  let prewarming: Promise<KeptChunksReport | undefined> | undefined;
  worker.ref();
  resolveVecExtension().then(
    (vecPath) => worker.postMessage({ type: "open", path, vecPath, state: state.buffer as SharedArrayBuffer, keepBytes } satisfies KnnRequest),
    fail,
  );
  return {
    ready,
    get answered() {
      return answered;
    },
    get keepsChunks() {
      return Atomics.load(state, KEEPS) === 1;
    },
    get failed() {
      return failed;
    },
    scan(table, partitions, query, k, next) {
      if (broken || closed || Atomics.load(state, 0) !== KNN_STATE.ready) return undefined;
      return ask((id) => ({ type: "scan", id, table, partitions, query, k, next: next.buffer as SharedArrayBuffer })).then((answer) => {
        if (answer?.type !== "hits") {
          failed++;
          return undefined;
        }
        answered++;
        return Array.from(answer.ids, (episodeId, i) => ({ episodeId, distance: answer.distances[i]! }));
      });
    },
    prewarm(table, dims, partitions) {
      prewarming ??= ready
        .then((ok) => (ok && !broken && !closed ? ask((id) => ({ type: "prewarm", id, table, dims, partitions })) : undefined))
        .then((answer) => (answer?.type === "prewarmed" ? { chunks: answer.chunks, bytes: answer.bytes, full: answer.full } : undefined))
        .finally(() => (prewarming = undefined));
      return prewarming;
    },
    close() {
      if (closed) return;
      closed = true;
      // Nothing opened yet: the worker will open nothing. Otherwise its handle closes before the
      // store's do (a job in hand is finished first).
      const before = Atomics.compareExchange(state, 0, KNN_STATE.starting, KNN_STATE.cancelled);
      if (!exited && (before === KNN_STATE.opening || before === KNN_STATE.ready)) {
        post({ type: "close" });
        const deadline = Date.now() + CLOSE_WAIT_MS;
        for (let now: number = before; (now === KNN_STATE.opening || now === KNN_STATE.ready) && Date.now() < deadline; now = Atomics.load(state, 0)) {
          Atomics.wait(state, 0, now, deadline - Date.now());
        }
      }
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
    beside = startKnnBeside(store.path, store.knnCacheBytes) ?? null;
    besides.set(store, beside);
    if (beside) store.onClose(() => beside!.close());
  }
  return beside ?? undefined;
}

/** A static KNN the worker has started: finish() scans the cells it has not taken, on the calling thread, and merges. */
export type SharedStaticKnn = { finish(): Promise<EpisodeHit[] | undefined> };

/**
 * The static KNN of a scope with cells, started on the store's worker. Undefined (nothing posted)
 * where the calling thread should run it alone (knnStaticEpisodes): no cells in the scope, a
 * database in memory, the worker not ready or not available. finish() resolves to the k nearest,
 * or to undefined when the worker's part failed.
 */
export function shareStaticKnn(store: Store, vector: Float32Array, k: number, scope: string): SharedStaticKnn | undefined {
  if (isMemoryPath(store.path)) return undefined;
  const db = store.dbRO();
  const cells = probedStaticCells(db, vector, scope);
  if (!cells) return undefined;
  const query = toInt8Vector(vector);
  const next = new Int32Array(new SharedArrayBuffer(4));
  const beside = knnBesideOf(store);
  const theirs = beside?.scan(cells.table, cells.partitions, query, k, next);
  if (!theirs) return undefined;
  return {
    async finish() {
      // A worker scanning kept chunks finishes sooner than this thread would read the cells left.
      if (beside!.keepsChunks && Atomics.load(next, 0) > 0) return theirs;
      let taken = 0;
      const mine = scanInt8Partitions(db, cells.table, cells.partitions, query, k, () => {
        const p = Atomics.add(next, 0, 1);
        if (p < cells.partitions.length) taken++;
        return p;
      });
      // Every cell scanned here: the worker took none (it answers an empty list, not waited for).
      if (taken === cells.partitions.length) return mine;
      const hits = await theirs;
      return hits && mergeNearest([mine, hits], k);
    },
  };
}

/** What prewarmStaticCells kept: the scopes whose cells it asked for, the worker's report, and how long it took. */
export type StaticCellsPrewarm = KeptChunksReport & { scopes: string[]; seconds: number };

/**
 * Keeps the static cells of every scope that has them (scope by scope, the one with the latest
 * episode first: a cache too small for all holds the ones in use) in the store's KNN worker, while it is idle, up to the store's knnCacheBytes: a restarted
 * server's first recalls then scan kept chunks instead of reading them out of SQLite and keeping
 * them (~0.4 ms a chunk, ~2,000 chunks and ~264 MB at 1M episodes). Nothing to keep (no scope has
 * cells, no room to keep any, or a database in memory): an empty report. Undefined when the worker
 * cannot start or failed.
 */
export async function prewarmStaticCells(store: Store): Promise<StaticCellsPrewarm | undefined> {
  const started = performance.now();
  // A file's worker keeps them; in memory they are already.
  const cells = store.knnCacheBytes > 0 && !isMemoryPath(store.path) ? allStaticCells(store.dbRO()) : undefined;
  if (!cells) return { scopes: [], chunks: 0, bytes: 0, full: false, seconds: 0 };
  const report = await knnBesideOf(store)?.prewarm(cells.table, cells.dims, cells.partitions);
  return report && { ...report, scopes: cells.scopes, seconds: (performance.now() - started) / 1000 };
}
