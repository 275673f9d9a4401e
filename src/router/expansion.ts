/**
 * Terms for the second retrieval round, pure. A multi-hop question names one end of the chain; the
 * first hits name the next link (a person, a place, an object). The second round searches with the
 * names of the entities the first hits mention and their graph neighbours, and with the words the
 * first hits share that the query does not have (pseudo-relevance feedback).
 */
import { queryTerms } from "../retrieval/query-text.ts";

/** At most this many feedback words: more drown the query's own terms. */
const FEEDBACK_WORDS = 4;

export function expansionTerms(query: string, firstHits: readonly string[], entityNames: readonly string[]): string[] {
  const own = new Set(queryTerms(query));
  const names = entityNames.flatMap((name) => queryTerms(name)).filter((term) => !own.has(term));
  const frequency = new Map<string, number>();
  for (const text of firstHits) {
    for (const term of new Set(queryTerms(text))) if (!own.has(term) && term.length > 2 && !/^\d+$/.test(term)) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  }
  const shared = [...frequency.entries()]
    .filter(([, count]) => count >= 2)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, FEEDBACK_WORDS)
    .map(([term]) => term);
  return [...new Set([...names, ...shared])];
}
