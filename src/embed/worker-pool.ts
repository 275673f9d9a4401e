/**
 * An Embedder backed by Bun Workers: each worker builds its own copy of the embedder from its spec
 * (the bundled model is single-threaded WASM, so workers are how it uses more than one core). A batch
 * is split across idle workers; a worker that dies is replaced and its batch retried elsewhere.
 */
import { embeddedPath, isEmbeddedPath } from "../engine/embedded.ts";
import { GllamError } from "../engine/errors.ts";
import { checkVectors, type Embedder, type EmbedderSpec } from "./embedder.ts";
import type { WorkerReply, WorkerRequest } from "./worker-protocol.ts";

export type WorkerPoolOptions = {
  workers: number;
  /** Texts per message to a worker: small enough to spread work, large enough to amortise a call. */
  chunkSize?: number;
  /** How often one batch may be retried after its worker died. */
  maxRetries?: number;
};

export type PooledEmbedder = Embedder & {
  /** Terminates the workers; the promise settles once every one has exited (its memory is then freed). */
  close(): Promise<void>;
  /** Workers replaced after a crash since the pool started. */
  readonly restarts: number;
  readonly size: number;
};

/**
 * The worker's entry point. In the compiled binary, scripts/build.ts embeds it as an entry point of
 * its own, stored by its path below src/ (the entry points' common folder) as .js.
 */
const WORKER_ENTRY = isEmbeddedPath(import.meta.url) ? embeddedPath("embed/embed-worker.js") : new URL("./embed-worker.ts", import.meta.url).href;

type Job = { id: number; texts: string[]; attempts: number; resolve(vectors: Float32Array[]): void; reject(error: Error): void };
type Slot = { worker: Worker; job: Job | undefined; lastError?: string };

/** The embedder spread over `workers` workers, or undefined when it cannot be rebuilt in a worker (it has no spec). */
export function poolEmbedder(template: Embedder, options: WorkerPoolOptions): PooledEmbedder | undefined {
  const spec = template.spec;
  return spec ? createPooledEmbedder({ ...template, spec, embed: (texts) => template.embed(texts) }, options) : undefined;
}

export function createPooledEmbedder(template: Embedder & { spec: EmbedderSpec }, options: WorkerPoolOptions): PooledEmbedder {
  const size = options.workers;
  if (!Number.isInteger(size) || size < 1 || size > 64) throw new GllamError("E_BAD_INPUT", `workers must be an integer in 1..64, got ${size}`);
  const chunkSize = options.chunkSize ?? 32;
  const maxRetries = options.maxRetries ?? 2;
  const queue: Job[] = [];
  const slots: Slot[] = [];
  let nextId = 1;
  let restarts = 0;
  let closed = false;
  let closing: Promise<void> | undefined;
  let dims = template.dims;

  function spawn(): Slot {
    const worker = new Worker(WORKER_ENTRY);
    const slot: Slot = { worker, job: undefined };
    worker.postMessage({ type: "init", spec: template.spec } satisfies WorkerRequest);
    worker.addEventListener("message", (event: MessageEvent<WorkerReply>) => settle(slot, event.data));
    // "close" fires when a worker exits for any reason; an unexpected one is a crash.
    worker.addEventListener("close", () => replace(slot));
    worker.addEventListener("error", (event) => {
      slot.lastError = event.message;
    });
    // Referenced only while it holds a job (dispatch/settle): an idle pool never keeps the process
    // alive, and a busy one is waited for normally. (Bun's event loop spins at 100% of a core while an
    // unreferenced worker runs: the main thread then took a core from the model.)
    worker.unref();
    return slot;
  }

  function settle(slot: Slot, reply: WorkerReply): void {
    const job = slot.job;
    if (!job || job.id !== reply.id) return;
    slot.job = undefined;
    slot.worker.unref();
    if (reply.type === "vectors") {
      try {
        const got = checkVectors(reply.vectors, job.texts.length, `embedding worker (${template.modelVersion})`);
        if (got !== 0) dims = got;
        job.resolve(reply.vectors);
      } catch (error) {
        job.reject(error as Error);
      }
    } else {
      job.reject(reply.code ? new GllamError(reply.code, reply.message) : new GllamError("E_EMBEDDER", `embedding worker failed: ${reply.message}`));
    }
    dispatch();
  }

  function replace(slot: Slot): void {
    if (closed) return;
    const at = slots.indexOf(slot);
    if (at < 0) return;
    restarts++;
    const job = slot.job;
    slots[at] = spawn();
    if (job) {
      job.attempts++;
      const why = slot.lastError ? ` (last error: ${slot.lastError})` : "";
      if (job.attempts > maxRetries) job.reject(new GllamError("E_EMBEDDER", `an embedding worker died ${job.attempts} times on the same batch of ${job.texts.length} texts${why}`));
      else queue.unshift(job);
    }
    dispatch();
  }

  function dispatch(): void {
    for (const slot of slots) {
      if (slot.job || queue.length === 0) continue;
      const job = queue.shift()!;
      slot.job = job;
      slot.worker.ref();
      slot.worker.postMessage({ type: "embed", id: job.id, texts: job.texts } satisfies WorkerRequest);
    }
  }

  function submit(texts: string[]): Promise<Float32Array[]> {
    if (closed) return Promise.reject(new GllamError("E_EMBEDDER", "the embedding worker pool is closed"));
    return new Promise((resolve, reject) => {
      queue.push({ id: nextId++, texts, attempts: 0, resolve, reject });
      dispatch();
    });
  }

  for (let i = 0; i < size; i++) slots.push(spawn());

  return {
    get modelVersion() {
      return template.modelVersion;
    },
    get dims() {
      return dims;
    },
    spec: template.spec,
    size,
    get restarts() {
      return restarts;
    },
    async embed(texts: string[]): Promise<Float32Array[]> {
      const chunks: Promise<Float32Array[]>[] = [];
      for (let i = 0; i < texts.length; i += chunkSize) chunks.push(submit(texts.slice(i, i + chunkSize)));
      return (await Promise.all(chunks)).flat();
    },
    close(): Promise<void> {
      // A second close waits for the first (its workers' close events have fired, or will once).
      if (closing) return closing;
      closed = true;
      const exited = slots.map((slot) => new Promise<void>((resolve) => slot.worker.addEventListener("close", () => resolve())));
      for (const slot of slots) slot.worker.terminate();
      for (const job of queue.splice(0)) job.reject(new GllamError("E_EMBEDDER", "the embedding worker pool was closed"));
      for (const slot of slots) slot.job?.reject(new GllamError("E_EMBEDDER", "the embedding worker pool was closed"));
      closing = Promise.all(exited).then(() => undefined);
      return closing;
    },
  };
}
