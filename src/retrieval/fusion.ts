/**
 * Rank fusion, pure: weighted Reciprocal Rank Fusion of several ranked lists, then a neighbour
 * boost (a turn next to a strong match often holds the answer to what the match asked).
 */

export type RankedList = { name: string; weight: number; ids: number[] };

/** score(d) = sum over lists of weight / (k + rank(d)), ranks from 1. */
export function fuseReciprocalRanks(lists: RankedList[], k: number): Map<number, number> {
  const scores = new Map<number, number>();
  for (const list of lists) {
    if (list.weight === 0) continue;
    list.ids.forEach((id, i) => scores.set(id, (scores.get(id) ?? 0) + list.weight / (k + i + 1)));
  }
  return scores;
}

/** 1-based rank of each id in a list. */
export function rankPositions(ids: number[]): Map<number, number> {
  return new Map(ids.map((id, i) => [id, i + 1]));
}

/**
 * Adds weight x the best neighbour's score to each item (items may be neighbours that were not
 * candidates themselves). neighbours(id) gives the ids adjacent to an item.
 */
export function boostByNeighbours(scores: Map<number, number>, neighbours: Map<number, number[]>, weight: number): Map<number, number> {
  if (weight === 0) return scores;
  const boosted = new Map<number, number>();
  const ids = new Set([...scores.keys(), ...[...neighbours.values()].flat()]);
  for (const id of ids) {
    const best = Math.max(0, ...(neighbours.get(id) ?? []).map((n) => scores.get(n) ?? 0));
    boosted.set(id, (scores.get(id) ?? 0) + weight * best);
  }
  return boosted;
}

/** Ids by descending score; ties by id (older first) so results are deterministic. */
export function sortByScore(scores: Map<number, number>): number[] {
  return [...scores.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([id]) => id);
}

/** Each item's speaker factor: 1 + boost for the named speakers' items, 1 for the rest (and the unknown). */
export function speakerFactors(speakerOf: Map<number, string>, speakers: string[], boost: number): (id: number) => number {
  const named = new Set(speakers);
  return (id) => (named.has(speakerOf.get(id) ?? "") ? 1 + boost : 1);
}

/** Multiplies by (1 + boost) the scores of items spoken by one of the named speakers. */
export function boostBySpeaker(scores: Map<number, number>, speakerOf: Map<number, string>, speakers: string[], boost: number): Map<number, number> {
  if (boost === 0 || speakers.length === 0) return scores;
  const factorOf = speakerFactors(speakerOf, speakers, boost);
  return new Map([...scores].map(([id, score]) => [id, score * factorOf(id)]));
}

/**
 * The items that can still be in the top k of boostBySpeaker(boostByNeighbours(scores)), or
 * undefined when any turn might (then every item's neighbours and speaker are needed). The boosts
 * only raise a score: by at most weight x the best score, then times the item's speaker factor
 * (factorOf; undefined where the speaker is not read yet, then anything from 1 to maxFactor). So an
 * item whose score with the largest lift and factor stays below the k-th score with neither cannot
 * reach the top k, and a turn that is no item (score 0) cannot when the lift times maxFactor stays
 * below it. Only those that can need their neighbours and speakers read; with the speakers of the
 * first answer's, a second answer is as short or shorter. Exact: the same top k with the same scores
 * as with every item's. (At 1M episodes reading every candidate's cost ~3 ms a recall, ~0.7 these.)
 */
export function boostContenders(scores: Map<number, number>, k: number, weight: number, factorOf: (id: number) => number | undefined, maxFactor: number): number[] | undefined {
  // (A negative score, weight or factor below 1 could turn a lift into a fall: then every item is read.)
  if (scores.size < k || !(weight >= 0) || !(maxFactor >= 1) || Math.min(...scores.values()) < 0) return undefined;
  const kth = [...scores].map(([id, score]) => score * (factorOf(id) ?? 1)).sort((a, b) => b - a)[k - 1]!;
  const lift = weight * Math.max(...scores.values());
  if (lift * maxFactor >= kth) return undefined;
  return [...scores].filter(([id, score]) => (score + lift) * (factorOf(id) ?? maxFactor) >= kth).map(([id]) => id);
}

/**
 * Ranks the groups (sessions) of scored items: a group scores its best item plus a decaying share
 * of its next ones (decay^i for its i-th best), so a session with several good turns beats one
 * lucky turn, without letting long sessions win by size alone.
 */
export function rankGroups(items: { group: string; score: number }[], decay: number): string[] {
  const byGroup = new Map<string, number[]>();
  for (const item of items) byGroup.set(item.group, [...(byGroup.get(item.group) ?? []), item.score]);
  const scored = [...byGroup].map(([group, scores]) => {
    const total = scores.sort((a, b) => b - a).reduce((sum, score, i) => sum + score * decay ** i, 0);
    return { group, total };
  });
  return scored.sort((a, b) => b.total - a.total || a.group.localeCompare(b.group)).map((s) => s.group);
}
