/**
 * Distillation (model2vec-style, no training): every vocabulary piece of the bundled model is
 * embedded alone, and every word of a frequency-ordered list is embedded as a one-word text; the
 * rows are projected on their principal directions (fewer dimensions: faster, smaller) and
 * quantised to int8. Deterministic: fixed inputs in a fixed order, fixed batches, one
 * thread.
 */
import { createLocalModelEmbedder, LOCAL_MODEL_DIMS } from "../local-model.ts";
import { embedPieceSequences, readModelVocabulary } from "../local-model-runtime.ts";
import { projectOnPrincipalDirections } from "./pca.ts";
import type { PieceVocabulary } from "./piece-tokenizer.ts";
import { staticTableVersion, type StaticTablePlan } from "./plan.ts";
import { quantiseRows, type StaticTable } from "./table.ts";

/** Rows embedded per progress step (a multiple of the model's batch, so batches never change). */
const STEP = 1024;

export async function distillStaticTable(plan: StaticTablePlan, onProgress?: (done: number, total: number) => void): Promise<StaticTable> {
  const pieces: PieceVocabulary = await readModelVocabulary();
  const model = createLocalModelEmbedder();
  const total = plan.pieceRows + plan.words.length;
  const rows: Float32Array[] = [];
  const ids = Array.from({ length: plan.pieceRows }, (_, id) => [id]);
  for (let i = 0; i < ids.length; i += STEP) {
    rows.push(...(await embedPieceSequences(ids.slice(i, i + STEP))));
    onProgress?.(rows.length, total);
  }
  for (let i = 0; i < plan.words.length; i += STEP) {
    rows.push(...(await model.embed(plan.words.slice(i, i + STEP))));
    onProgress?.(rows.length, total);
  }
  const dims = plan.dims ?? LOCAL_MODEL_DIMS;
  const { values, scales } = quantiseRows(dims === LOCAL_MODEL_DIMS ? rows : projectOnPrincipalDirections(rows, LOCAL_MODEL_DIMS, dims), dims);
  const { pieceRows, words, ranks, listSize } = plan;
  return { modelVersion: staticTableVersion(plan), dims, pieceRows, words, ranks, listSize, pieces, values, scales };
}
