/**
 * Which pieces and words a static table holds. A plan names the table's version before any model
 * runs, so a cached table is found without loading the model. Pure.
 */
import { LOCAL_MODEL_VERSION } from "../local-model-version.ts";

/** Bumped whenever the recipe changes what a table holds. */
const RECIPE = 1;

export type StaticTablePlan = {
  /** Dimensions kept (principal directions of the rows); the model's own when absent. */
  dims?: number;
  /** Piece ids 0..pieceRows-1 get rows. */
  pieceRows: number;
  /** Words in row order with their 1-based ranks in the full list. */
  words: string[];
  ranks: number[];
  listSize: number;
};

/**
 * The words and pieces a table holds: the first `topWords` of the list, plus any further list words
 * whose lower-cased form is in `alsoWords` (a smaller table that still embeds those words exactly as
 * the full table would), and the first `pieceRows` pieces.
 */
export function planStaticTable(list: string[], options: { topWords?: number; alsoWords?: Iterable<string>; pieceRows: number; dims?: number }): StaticTablePlan {
  const also = new Set([...(options.alsoWords ?? [])].map((word) => word.toLowerCase()));
  const top = options.topWords ?? list.length;
  const chosen = list.flatMap((word, i) => (i < top || also.has(word.toLowerCase()) ? [{ word, rank: i + 1 }] : []));
  return { dims: options.dims, pieceRows: options.pieceRows, words: chosen.map((c) => c.word), ranks: chosen.map((c) => c.rank), listSize: list.length };
}

/** A short hash of everything that decides a plan's table (recipe, model, pieces, words). */
export function staticPlanHash(plan: StaticTablePlan): string {
  const key = JSON.stringify([RECIPE, LOCAL_MODEL_VERSION, plan.dims ?? null, plan.pieceRows, plan.listSize, plan.words, plan.ranks]);
  return new Bun.CryptoHasher("sha256").update(key).digest("hex").slice(0, 12);
}

/** The version string of the table a plan gives: a different plan is a different vector space. */
export const staticTableVersion = (plan: StaticTablePlan) => `static-${staticPlanHash(plan)}:${LOCAL_MODEL_VERSION}`;

