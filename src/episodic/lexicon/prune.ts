/**
 * Exact top-k pruning for the lexicon's BM25 (MaxScore, term at a time): terms are scored from the
 * highest bound down; once the bounds of the terms left sum below the k-th best score so far, no
 * episode they alone could add reaches the top, and they are scored for the candidates only (the
 * episodes scored so far whose score plus those bounds still reaches it). Scores only grow, so the
 * k-th best so far never exceeds the final k-th best: nothing left out could have been ranked.
 */

/**
 * Relative slack in every comparison of a bound with a score: scores summed in another order than
 * the final one differ by a few ulps (1e-15), so a bound within 1e-9 of the k-th score is kept.
 */
export const SLACK = 1e-9;

/**
 * The most a term adds to any episode's score: weight * f / (f + norm + lengthFactor * length) is
 * below weight for every count and length, since norm = k1 * (1 - b) > 0. Needs nothing stored, so
 * no forget or merge can make it too low. A term no episode holds adds nothing.
 */
export const termBound = (weight: number, holding: number): number => (holding > 0 ? weight : 0);

/** The order to score terms in: highest bound first, ties in the query's order. */
export const boundOrder = (bounds: number[]): number[] => bounds.map((_, i) => i).sort((a, b) => bounds[b]! - bounds[a]! || a - b);

/** left[j]: the sum of the bounds of the terms from order[j] on (left[length] is 0). */
export function boundsLeft(bounds: number[], order: number[]): number[] {
  const left = new Array<number>(order.length + 1).fill(0);
  for (let j = order.length - 1; j >= 0; j--) left[j] = left[j + 1]! + bounds[order[j]!]!;
  return left;
}

/** Whether an episode whose score is at most `reach` stays below the k-th best score `kth`. */
export const cannotReach = (reach: number, kth: number): boolean => reach < kth * (1 - SLACK);

/** The k-th largest of values (k >= 1, k <= length), rearranging them (quickselect). */
export function kthLargest(values: Float64Array, k: number): number {
  let lo = 0;
  let hi = values.length - 1;
  const target = k - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! > pivot) i++;
      while (values[j]! < pivot) j--;
      if (i <= j) {
        const t = values[i]!;
        values[i++] = values[j]!;
        values[j--] = t;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return values[target]!;
  }
  return values[target]!;
}

/**
 * The best `limit` candidates (best first, ties by slot, as every ranking here breaks them), each
 * scored as the sum of its row of `table` (a part per term, in the query's term order) added from
 * the first term on: the same additions, in the same order, as scoring every posting term by term.
 * Only those reaching the limit-th sum are sorted (there may be tens of thousands of candidates).
 */
export function rankCandidates(candidates: Int32Array, table: Float64Array, stride: number, limit: number): number[] {
  const sums = new Float64Array(candidates.length);
  for (let c = 0; c < candidates.length; c++) {
    let sum = 0;
    for (let t = 0; t < stride; t++) sum += table[c * stride + t]!;
    sums[c] = sum;
  }
  const threshold = candidates.length > limit ? kthLargest(sums.slice(), limit) : -Infinity;
  const rows: number[] = [];
  for (let c = 0; c < candidates.length; c++) if (sums[c]! >= threshold) rows.push(c);
  rows.sort((a, b) => sums[b]! - sums[a]! || candidates[a]! - candidates[b]!);
  return rows.slice(0, limit).map((row) => candidates[row]!);
}
