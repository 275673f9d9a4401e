/** Retrieval metrics and summaries for the benchmarks; pure. */

/** Share of the relevant ids found in the first k retrieved. */
export function recallAtK(retrieved: readonly (string | number)[], relevant: ReadonlySet<string | number>, k: number): number {
  if (relevant.size === 0) return 0;
  const top = new Set(retrieved.slice(0, k));
  let found = 0;
  for (const id of relevant) if (top.has(id)) found++;
  return found / relevant.size;
}

/** 1 when any relevant id is in the first k. */
export const recallAnyAtK = (retrieved: readonly (string | number)[], relevant: ReadonlySet<string | number>, k: number) =>
  retrieved.slice(0, k).some((id) => relevant.has(id)) ? 1 : 0;

/** 1 when every relevant id is in the first k. */
export const recallAllAtK = (retrieved: readonly (string | number)[], relevant: ReadonlySet<string | number>, k: number) =>
  relevant.size > 0 && recallAtK(retrieved, relevant, k) === 1 ? 1 : 0;

/** NDCG@k with binary relevance (LongMemEval's ndcg_any). */
export function ndcgAtK(retrieved: readonly (string | number)[], relevant: ReadonlySet<string | number>, k: number): number {
  let dcg = 0;
  retrieved.slice(0, k).forEach((id, i) => {
    if (relevant.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal === 0 ? 0 : dcg / ideal;
}

/** Nearest-rank percentile (p in 0..100) of unsorted values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export const mean = (values: readonly number[]) => (values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length);

/** Averages per-question metric rows, overall and per group. */
export function summarize(rows: { group: string; metrics: Record<string, number> }[]): {
  overall: Record<string, number>;
  byGroup: Record<string, { questions: number } & Record<string, number>>;
} {
  const average = (subset: typeof rows) => {
    const names = Object.keys(subset[0]?.metrics ?? {});
    return Object.fromEntries(names.map((name) => [name, round(mean(subset.map((row) => row.metrics[name]!)))]));
  };
  const groups = [...new Set(rows.map((row) => row.group))].sort();
  return {
    overall: average(rows),
    byGroup: Object.fromEntries(
      groups.map((group) => {
        const subset = rows.filter((row) => row.group === group);
        return [group, { questions: subset.length, ...average(subset) }];
      }),
    ),
  };
}

export const round = (value: number, digits = 4) => Math.round(value * 10 ** digits) / 10 ** digits;
