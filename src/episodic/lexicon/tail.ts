/**
 * The episodes past the lexicon's last block (fewer than a block, more while one is being built),
 * as postings by term. Read from FTS5 and inverted per query, they cost ~5 ms at 1M (MATCH with
 * `rowid > ?` ~2 ms, inverting the matching turns ~3 ms): a connection that asks again, the tail
 * unchanged or only grown, inverts the whole tail once and keeps it, extending it as turns are
 * appended.
 */
import type { Database } from "bun:sqlite";
import { invertTurns, readMatchingTurns, readTurnsAfter } from "./build.ts";

/** The tail's postings by term (flat: id, content count, context count, length), and its episode count. */
export type Tail = { byTerm: Map<string, number[]>; documents: number };

/**
 * What the tail's postings depend on: the blocks (a new one moves the watermark; forgetting a turn
 * in one lowers its episode count, and may change the context of a tail turn after it) and the
 * tail's own episodes (ids only grow, and a turn's text never changes but by forgetting it).
 */
export type TailState = { watermark: number; indexed: number; documents: number; lastId: number };

type Kept = TailState & { byTerm: Map<string, number[]> | undefined };

/** Per connection and scope: the tail last asked for, inverted once it was asked for twice. */
const kept = new WeakMap<Database, Map<string, Kept>>();

/**
 * Whether `now` is `before` with episodes appended: no new block, nothing forgotten (the kept
 * episodes are all still there), and no appended turn placed before a kept one in its session
 * (that one's context, the turn before it, would have changed).
 */
export function onlyAppended(before: TailState, now: TailState, keptStillThere: number, keptAfterAppended: number): boolean {
  return before.watermark === now.watermark && before.indexed === now.indexed && now.lastId > before.lastId && keptStillThere === before.documents && keptAfterAppended === 0;
}

/** The kept episodes still there, and those whose turn before is an appended one. */
function checkKept(db: Database, scope: string, kept: TailState, now: TailState): [number, number] {
  const still = db.query<{ n: number }, [number, number, string]>("SELECT count(*) AS n FROM episodes WHERE id > ? AND id <= ? AND +scope = ?").get(kept.watermark, kept.lastId, scope)!.n;
  const after = db
    .query<{ n: number }, [number, number, string, number]>(
      `SELECT count(*) AS n FROM episodes e JOIN episodes next ON next.scope = e.scope AND next.session_id = e.session_id AND next.seq = e.seq + 1
       WHERE e.id > ?1 AND e.id <= ?2 AND +e.scope = ?3 AND next.id > ?4 AND next.id <= ?1`,
    )
    .get(kept.lastId, now.lastId, scope, kept.watermark)!.n;
  return [still, after];
}

const sameState = (a: TailState, b: TailState) => a.watermark === b.watermark && a.indexed === b.indexed && a.documents === b.documents && a.lastId === b.lastId;

/** The scope's turns in (after, last]: a turn written since the tail was counted waits for the next query. */
const readTurnsUpTo = (db: Database, scope: string, after: number, last: number) => readTurnsAfter(db, scope, after, last - after).filter((row) => row.id <= last);

/** Appends postings by term (ascending ids past every kept one); returns `into`. */
function appendPostings(into: Map<string, number[]>, more: Map<string, number[]>): Map<string, number[]> {
  for (const [term, flat] of more) {
    const list = into.get(term);
    if (list) for (const n of flat) list.push(n);
    else into.set(term, flat);
  }
  return into;
}

/**
 * The tail's postings of the query's terms: from the kept inversion while the tail is unchanged
 * or only grew, else from the turns FTS5 finds for `match` (a first ask, or a changed tail).
 */
export function readTail(db: Database, scope: string, state: TailState, match: string, maxDocuments: number): Tail | undefined {
  if (state.documents > maxDocuments) return undefined;
  let byScope = kept.get(db);
  if (!byScope) kept.set(db, (byScope = new Map()));
  const previous = byScope.get(scope);
  if (previous?.byTerm && sameState(previous, state)) return { byTerm: previous.byTerm, documents: state.documents };
  // Asked before, and the tail is the same or only grew since: its inversion is kept from now on
  // (made whole on the second ask, then extended by the turns appended). An agent that writes a
  // turn before each recall never asks twice with the tail unchanged, and paid the FTS5 path
  // every time (~5 ms at 1M).
  if (previous && (sameState(previous, state) || onlyAppended(previous, state, ...checkKept(db, scope, previous, state)))) {
    const turns = invertTurns(readTurnsUpTo(db, scope, previous.byTerm ? previous.lastId : state.watermark, state.lastId)).byTerm;
    const byTerm = previous.byTerm ? appendPostings(previous.byTerm, turns) : turns;
    byScope.set(scope, { ...state, byTerm });
    return { byTerm, documents: state.documents };
  }
  byScope.set(scope, { ...state, byTerm: undefined });
  return { byTerm: invertTurns(readMatchingTurns(db, scope, match, state.watermark)).byTerm, documents: state.documents };
}

/** The tail's episode count and last id, counted up to one past `maxDocuments`. */
export function countTail(db: Database, scope: string, watermark: number, maxDocuments: number): { documents: number; lastId: number } {
  const row = db
    .query<{ n: number; last: number | null }, [number, string, number]>("SELECT count(*) AS n, max(id) AS last FROM (SELECT id FROM episodes WHERE id > ? AND +scope = ? ORDER BY id LIMIT ?)")
    .get(watermark, scope, maxDocuments + 1)!;
  return { documents: row.n, lastId: row.last ?? watermark };
}
