/** Builds an embedder from its serialisable spec: in a worker thread, or for a module given by path. */
import { isAbsolute, resolve } from "node:path";
import { describeError, GllamError } from "../engine/errors.ts";
import type { Embedder, EmbedderSpec } from "./embedder.ts";
import { createHttpEmbedder } from "./http.ts";
import { createLocalModelEmbedder } from "./local-model.ts";

export async function createEmbedderFromSpec(spec: EmbedderSpec): Promise<Embedder> {
  switch (spec.kind) {
    case "local":
      return createLocalModelEmbedder();
    case "http":
      return createHttpEmbedder(spec);
    case "module": {
      const path = isAbsolute(spec.path) ? spec.path : resolve(spec.path);
      let factory: unknown;
      try {
        factory = (await import(path)).default;
      } catch (error) {
        throw new GllamError("E_EMBEDDER", `cannot load embedder module ${path}: ${describeError(error)}`);
      }
      if (typeof factory !== "function") throw new GllamError("E_EMBEDDER", `embedder module ${path} must export a default function returning an embedder`);
      const embedder = (await factory()) as Embedder;
      return {
        get modelVersion() {
          return embedder.modelVersion;
        },
        get dims() {
          return embedder.dims;
        },
        embed: (texts) => embedder.embed(texts),
        spec: { kind: "module", path },
      };
    }
  }
}
