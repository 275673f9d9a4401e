import type { GllamErrorCode } from "../engine/errors.ts";
import type { EmbedderSpec } from "./embedder.ts";

/** Messages between the worker pool and its embedding workers. */
export type WorkerRequest = { type: "init"; spec: EmbedderSpec } | { type: "embed"; id: number; texts: string[] };
export type WorkerReply =
  | { type: "vectors"; id: number; vectors: Float32Array[]; modelVersion: string }
  /** code: the worker's GllamError code (an unreachable server stays E_EMBEDDER_UNREACHABLE through the pool). */
  | { type: "error"; id: number; message: string; code?: GllamErrorCode };
