/**
 * WAL checkpoints on the second core during an ingest. At 1M episodes the writer's own
 * auto-checkpoints (every 256 MiB of WAL) were ~8-10% of the writer's wall time: copying the WAL's
 * frames into the file and the file's fsync, while the writer waited. Here a worker with a
 * connection of its own copies them while the writer writes the next chunk; after that chunk the
 * writer waits for it, then checkpoints that one chunk's frames itself, so every frame is in the
 * file and the next write restarts the WAL (SQLite restarts it only then): the WAL stays bounded by
 * the threshold plus about two chunks, as with auto-checkpoint (a WAL left to grow made every write
 * slower: 5,100-5,800 turns/s at 1M against 6,500-7,500).
 * The writer's auto-checkpoint is off meanwhile (useIngestSettings). A worker that fails (its
 * connection cannot open, a checkpoint throws, it dies) leaves the checkpoints to the writer's
 * thread at the same threshold, so an ingest never fails for it.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { isMemoryPath } from "./connections.ts";
import type { Store } from "./store.ts";
import { embeddedPath, isEmbeddedPath } from "./embedded.ts";
import { checkpointWAL, walSizeBytes } from "./wal.ts";

export type CheckpointerRequest = { type: "open"; id: number; path: string } | { type: "checkpoint"; id: number };
export type CheckpointerReply =
  | { type: "opened"; id: number }
  | { type: "checkpointed"; id: number; busy: boolean; logPages: number; checkpointedPages: number }
  | { type: "error"; id: number; message: string };

export type Checkpointer = {
  /** After each chunk's commit, outside its transaction: starts, waits for or finishes a checkpoint (see above). */
  afterCommit(): Promise<void>;
  /** Waits for a checkpoint in flight: call it before the writer checkpoints itself. */
  settle(): Promise<void>;
  /** Waits for a checkpoint in flight, then ends the worker. */
  close(): Promise<void>;
  /** Checkpoints the worker ran, and whether it failed (the writer's thread checkpoints since). */
  readonly runs: number;
  readonly failed: boolean;
};

export type CheckpointerOptions = {
  /** WAL frames (pages) past which a checkpoint starts (an ingest: INGEST_AUTOCHECKPOINT_PAGES). */
  thresholdPages: number;
  /** The file the worker opens: the store's (tests name one that cannot open). */
  path?: string;
};

/** In the compiled binary, scripts/build.ts embeds the worker as an entry point of its own (by its path below src/, as .js). */
const WORKER_ENTRY = isEmbeddedPath(import.meta.url) ? embeddedPath("engine/checkpoint-worker.js") : new URL("./checkpoint-worker.ts", import.meta.url).href;

/**
 * The WAL's frames: mxFrame of the wal-index header, bytes 16-19 of the -shm file in native byte
 * order (sqlite.org/walformat.html, 2.1); what auto-checkpoint compares with its threshold. The WAL
 * file's size is no measure: a restarted WAL is overwritten from its start, not truncated.
 */
export function walFrames(dbPath: string): number {
  let fd: number | undefined;
  try {
    fd = openSync(`${dbPath}-shm`, "r");
    const header = Buffer.alloc(4);
    if (readSync(fd, header, 0, 4, 16) !== 4) return 0;
    return header.readUInt32LE(0);
  } catch {
    // No wal-index (yet): the file's size bounds the frames from above.
    return Math.floor(walSizeBytes(dbPath) / 4096);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A checkpointing worker for the store's file; undefined when a replicator owns the checkpoints or the store is in memory. */
export function startCheckpointer(store: Store, options: CheckpointerOptions): Checkpointer | undefined {
  if (store.externalCheckpoints || isMemoryPath(store.path)) return undefined;
  const worker = new Worker(WORKER_ENTRY);
  const waiting = new Map<number, (reply: CheckpointerReply | undefined) => void>();
  worker.addEventListener("message", (event: MessageEvent<CheckpointerReply>) => {
    waiting.get(event.data.id)?.(event.data);
    waiting.delete(event.data.id);
  });
  worker.addEventListener("close", () => {
    for (const settle of waiting.values()) settle(undefined);
    waiting.clear();
  });
  // Referenced only while a request is out: an idle worker never keeps the process alive.
  worker.unref();
  let nextId = 1;
  const ask = (request: CheckpointerRequest) => {
    worker.ref();
    const reply = new Promise<CheckpointerReply | undefined>((resolve) => waiting.set(request.id, resolve));
    worker.postMessage(request);
    return reply.then((answer) => {
      if (waiting.size === 0) worker.unref();
      return answer;
    });
  };
  const state = { runs: 0, failed: false, closed: false };
  const opened = ask({ type: "open", id: nextId++, path: options.path ?? store.path }).then((reply) => {
    if (reply?.type !== "opened") state.failed = true;
  });
  let inFlight: Promise<void> | undefined;
  const settle = async () => {
    const flight = inFlight;
    inFlight = undefined;
    await flight;
  };
  const overThreshold = () => walFrames(store.path) >= options.thresholdPages;
  return {
    get runs() {
      return state.runs;
    },
    get failed() {
      return state.failed;
    },
    async afterCommit() {
      if (inFlight) {
        // The chunk after the one that passed the threshold is written: the worker has had that
        // chunk's time; what it did not copy (this chunk's frames) the writer copies now.
        await settle();
        checkpointWAL(store.db(), "PASSIVE");
        return;
      }
      if (!overThreshold()) return;
      await opened;
      if (state.failed || state.closed) {
        checkpointWAL(store.db(), "PASSIVE");
        return;
      }
      inFlight = ask({ type: "checkpoint", id: nextId++ }).then((reply) => {
        if (reply?.type === "checkpointed") state.runs++;
        else state.failed = true;
      });
    },
    settle,
    async close() {
      await settle();
      await opened;
      state.closed = true;
      const exited = new Promise<void>((resolve) => worker.addEventListener("close", () => resolve()));
      worker.terminate();
      await exited;
    },
  };
}
