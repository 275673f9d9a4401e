/**
 * How many episodes a scope holds per day (UTC), for a density strip: one pass over the
 * (scope, occurred_at) index, never over the episodes' text. Episodes without a date are counted apart.
 */
import type { Store } from "../engine/store.ts";
import { parseScope } from "../memory/parse.ts";

const DAY_MS = 86_400_000;

export type EpisodeDensity = {
  scope: string;
  /** Days that hold episodes, oldest first; `day` is the UTC midnight in epoch milliseconds. */
  days: { day: number; episodes: number }[];
  total: number;
  undated: number;
};

/** Episodes per UTC day in [start, end) (default: all time). */
export function countEpisodesByDay(store: Store, options: { scope?: string; start?: number; end?: number } = {}): EpisodeDensity {
  const scope = parseScope(options.scope);
  const db = store.dbRO();
  const days = db
    .query<{ day: number; episodes: number }, [string, number, number]>(
      `SELECT (occurred_at / ${DAY_MS}) * ${DAY_MS} AS day, count(*) AS episodes FROM episodes
       WHERE scope = ? AND occurred_at >= ? AND occurred_at < ? GROUP BY 1 ORDER BY 1`,
    )
    .all(scope, options.start ?? Number.MIN_SAFE_INTEGER, options.end ?? Number.MAX_SAFE_INTEGER);
  const undated = db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM episodes WHERE scope = ? AND occurred_at IS NULL").get(scope)?.n ?? 0;
  return { scope, days, total: days.reduce((sum, d) => sum + d.episodes, 0), undated };
}
