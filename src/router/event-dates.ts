/**
 * Dates for "two weeks before the trip": the event is dated by memory — a timeline event of that
 * name (its valid-from), else the day of the turn that best matches its words — and the span is
 * counted from there.
 */
import type { Store } from "../engine/store.ts";
import { readTimeline } from "../planning/timeline-reader.ts";
import { searchEpisodes, type EmbeddingTiers } from "../retrieval/search-episodes.ts";
import { findNodesByPhrases } from "../semantic/nodes.ts";
import { findEventRelativeExpressions, windowAroundEvent, type DateWindow } from "./dates.ts";
import { queryPhrases } from "./intent.ts";

/** Words only: dating an event needs no vectors, and a lexical search is a fraction of a hybrid one. */
const LEXICAL = { staticWeight: 0, staticAloneWeight: 0, denseWeight: 0 };

export async function dateEventExpressions(store: Store, tiers: EmbeddingTiers, query: string, options: { scope: string; asOf?: number }): Promise<DateWindow[]> {
  const expressions = findEventRelativeExpressions(query);
  if (expressions.length === 0) return [];
  const { events } = readTimeline(store, options.scope);
  const windows: DateWindow[] = [];
  for (const expression of expressions) {
    const nodes = findNodesByPhrases(store, [expression.event, ...queryPhrases(expression.event)], options.scope);
    let at = nodes.map((node) => events.find((e) => e.id === node.id)?.validFrom).find((t) => t !== null && t !== undefined) ?? undefined;
    if (at === undefined) {
      const [hit] = (await searchEpisodes(store, tiers, expression.event, { scope: options.scope, asOf: options.asOf, k: 1, tuning: LEXICAL })).hits;
      at = hit?.occurredAt ?? undefined;
    }
    if (at !== undefined) windows.push(windowAroundEvent(expression, at));
  }
  return windows;
}
