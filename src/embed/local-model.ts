/**
 * The bundled default embedder (Universal Sentence Encoder lite, 512 dims, unit norm). Its runtime
 * (tfjs and the model files, local-model-runtime.ts) is imported on the first embed, so commands
 * that never run the model (a recall the static tier answers, stats, ingest) do not evaluate it.
 */
import { assertEmbeddableTexts, type Embedder } from "./embedder.ts";
import { LOCAL_MODEL_DIMS, LOCAL_MODEL_VERSION } from "./local-model-version.ts";

export { LOCAL_MODEL_DIMS, LOCAL_MODEL_VERSION };

let runtime: Promise<typeof import("./local-model-runtime.ts")> | undefined;

/** Whether this process has loaded (or is loading) the model: the next embed does not wait for it. */
export const isLocalModelLoaded = (): boolean => runtime !== undefined;

export function createLocalModelEmbedder(): Embedder {
  return {
    modelVersion: LOCAL_MODEL_VERSION,
    dims: LOCAL_MODEL_DIMS,
    spec: { kind: "local" },
    async embed(texts: string[]): Promise<Float32Array[]> {
      assertEmbeddableTexts(texts);
      runtime ??= import("./local-model-runtime.ts");
      return (await runtime).embedWithModel(texts);
    },
  };
}
