/**
 * BM25 over the episode lexicon, at a few nanoseconds a posting instead of FTS5's ~1 µs per
 * matching episode, with exact top-k pruning (prune.ts): the terms whose bounds cannot lift an
 * episode to the k-th score are read for the candidates only, and the result is the same ranking
 * as scoring every posting. The episodes past the last block (fewer than a block) come from
 * tail.ts, scored with the lexicon's own terms. FTS5's bm25() formula and constants.
 */
import type { Database } from "bun:sqlite";
import { bm25Part, lowerBound, recordPostings, scoreCandidates, type Runs, type TermWeights } from "./postings.ts";
import { LEXICON_SIZES } from "./build.ts";
import { boundOrder, boundsLeft, cannotReach, rankCandidates, termBound } from "./prune.ts";
import { KTH_SAMPLE, RunningSums } from "./sums.ts";
import { countTail, readTail } from "./tail.ts";
import { lexiconTerms } from "./terms.ts";

const K1 = 1.2;
const B = 0.75;

/** A term's constants for recordPostings: bm25Part with the length's share precomputed. */
function termWeights(idf: number, averageLength: number, contextWeight: number): TermWeights {
  return { weight: idf * (K1 + 1), norm: K1 * (1 - B), lengthFactor: (K1 * B) / averageLength, contextWeight };
}

/** One posting outside a block (an episode past the last block), recorded as recordPostings records. */
function recordPosting(into: Runs, id: number, frequency: number, length: number, weights: TermWeights): void {
  if (frequency === 0) return;
  into.slots[into.recorded] = id - into.first;
  into.parts[into.recorded++] = bm25Part(frequency, length, weights);
}

/** bm25()'s inverse document frequency, floored as FTS5 floors it. */
export function bm25Idf(documents: number, holding: number): number {
  const idf = Math.log((documents - holding + 0.5) / (holding + 0.5));
  return idf > 0 ? idf : 1e-6;
}

/** Connections known to hold lexicon tables (a file made before them, opened read-only, has none). */
const withTables = new WeakMap<Database, boolean>();

/** Whether the scope has a lexicon. */
export function hasLexicon(db: Database, scope: string): boolean {
  if (!withTables.has(db)) {
    withTables.set(db, db.query("SELECT 1 FROM sqlite_schema WHERE name = 'episode_lexicon_blocks'").get() !== null);
  }
  return withTables.get(db)! && db.query("SELECT 1 FROM episode_lexicon_blocks WHERE scope = ? LIMIT 1").get(scope) !== null;
}

/** Per-query arrays, reused: the terms' runs and their running sums. */
let slots = new Int32Array(1 << 16);
let parts = new Float64Array(1 << 16);
const sums = new RunningSums();

function reserve(recorded: number): void {
  if (slots.length < recorded) {
    // Grown with what was recorded so far (the terms scored before this one).
    const [oldSlots, oldParts] = [slots, parts];
    slots = new Int32Array(Math.ceil(recorded * 1.5));
    parts = new Float64Array(slots.length);
    slots.set(oldSlots);
    parts.set(oldParts);
  }
}

/** Episodes past the last block ranked from their text; more wait only while a lexicon is being built. */
const TAIL_MAX = 3 * LEXICON_SIZES.block;

type TermList = { term: string; rows: { block: number; documents: number; postings: Uint8Array }[]; tail: number[]; holding: number; weights: TermWeights; from: number; to: number };

/**
 * The scope's best `limit` episodes by BM25 over the query words (best first, ties by id), or
 * undefined when the scope has no lexicon, or one still being built (more than TAIL_MAX episodes
 * past its blocks). `match` is the words' FTS5 expression, for the episodes past the blocks.
 * Exact top-k pruning (prune.ts): the same episodes, in the same order, as scoring every posting.
 */
export function rankByLexicon(db: Database, scope: string, words: string[], match: string, limit: number, contextWeight: number): number[] | undefined {
  if (!hasLexicon(db, scope)) return undefined;
  if (limit <= 0) return [];
  const blocks = db.query<{ block: number; last_id: number; documents: number; tokens: number }, [string]>("SELECT block, last_id, documents, tokens FROM episode_lexicon_blocks WHERE scope = ? ORDER BY block").all(scope);
  const terms = [...new Set(words.flatMap(lexiconTerms))];
  if (terms.length === 0) return [];
  const first = blocks[0]!.block;
  const lastOf = new Map(blocks.map((block) => [block.block, block.last_id]));
  const watermark = Math.max(...blocks.map((block) => block.last_id));
  const indexed = blocks.reduce((sum, block) => sum + block.documents, 0);
  const counted = countTail(db, scope, watermark, TAIL_MAX);
  const tail = readTail(db, scope, { watermark, indexed, ...counted }, match, TAIL_MAX);
  if (!tail) return undefined;
  const documents = indexed + tail.documents;
  const averageLength = blocks.reduce((sum, block) => sum + block.tokens, 0) / Math.max(1, indexed);
  const readRows = db.query<{ block: number; documents: number; postings: Uint8Array }, [string, string, string]>(
    "SELECT block, documents, postings FROM episode_lexicon_postings WHERE scope = ? AND term = ? AND block IN (SELECT value FROM json_each(?)) ORDER BY block",
  );
  const blockIds = JSON.stringify(blocks.map((block) => block.block));
  const lists: TermList[] = terms.map((term) => {
    const rows = readRows.all(scope, term, blockIds);
    const flat = tail.byTerm.get(term) ?? [];
    const holding = rows.reduce((sum, row) => sum + row.documents, 0) + flat.length / 4;
    return { term, rows, tail: flat, holding, weights: termWeights(bm25Idf(documents, holding), averageLength, contextWeight), from: 0, to: 0 };
  });
  const bounds = lists.map((list) => termBound(list.weights.weight, list.holding));
  const order = boundOrder(bounds);
  const left = boundsLeft(bounds, order);
  const into: Runs = { first, slots, parts, recorded: 0 };
  sums.reset();
  // Whole terms, highest bound first, until the bounds of the rest cannot lift a new episode to the k-th score.
  let scored = 0;
  for (; scored < order.length; scored++) {
    // The k-th score is at most the bounds of the terms scored so far: below the rest's, nothing can be left out yet.
    // (A negative context weight could lower a score: then every term is scored.)
    if (scored > 0 && contextWeight >= 0 && sums.count >= limit && left[scored]! < left[0]! - left[scored]!) {
      // Among evenly spaced sums when there are many (a query of common words scores most of the scope).
      if (cannotReach(left[scored]!, sums.kth(limit, KTH_SAMPLE))) break;
    }
    const list = lists[order[scored]!]!;
    reserve(into.recorded + list.holding);
    into.slots = slots;
    into.parts = parts;
    list.from = into.recorded;
    for (const row of list.rows) recordPostings(row.postings, row.block, list.weights, into);
    for (let i = 0; i < list.tail.length; i += 4) recordPosting(into, list.tail[i]!, list.tail[i + 1]! + contextWeight * list.tail[i + 2]!, list.tail[i + 3]!, list.weights);
    list.to = into.recorded;
    sums.add(slots, parts, list.from, list.to);
  }
  const candidates = sums.candidates(left[scored]!, sums.kth(limit));
  // Each candidate's part of every term, in a row of the table: recorded, or read for the candidates alone.
  const stride = lists.length;
  const table = new Float64Array(candidates.length * stride);
  const wasScored = new Set(order.slice(0, scored));
  lists.forEach((list, t) => {
    if (wasScored.has(t)) {
      copyRecorded(candidates, list.from, list.to, table, stride, t);
      return;
    }
    // Blocks ascend, and so do the candidates: each block starts from the first candidate in its range.
    let c = 0;
    for (const row of list.rows) {
      c = lowerBound(candidates, row.block - first, c);
      if (c === candidates.length) break;
      if (candidates[c]! > lastOf.get(row.block)! - first) continue;
      c = scoreCandidates(row.postings, row.block, list.weights, first, candidates, c, table, stride, t);
    }
    for (let i = 0; i < list.tail.length; i += 4) {
      c = lowerBound(candidates, list.tail[i]! - first, c);
      const frequency = list.tail[i + 1]! + contextWeight * list.tail[i + 2]!;
      if (candidates[c] === list.tail[i]! - first && frequency !== 0) table[c * stride + t] = bm25Part(frequency, list.tail[i + 3]!, list.weights);
    }
  });
  // Every posting is a live episode's: forgetting rewrites the rows of the forgotten turns' terms (forget.ts).
  return rankCandidates(candidates, table, stride, limit).map((slot) => slot + first);
}

/**
 * The recorded parts [from, to) of a term scored in full, for the candidates among their slots.
 * A term's slots ascend (rows by block, then the tail), as the candidates do: few candidates are
 * each found by bisection, many by walking both side by side.
 */
function copyRecorded(candidates: Int32Array, from: number, to: number, table: Float64Array, stride: number, column: number): void {
  const [recordedSlots, recordedParts] = [slots, parts];
  if (candidates.length * 20 > to - from) {
    let c = 0;
    for (let r = from; r < to && c < candidates.length; r++) {
      const slot = recordedSlots[r]!;
      while (c < candidates.length && candidates[c]! < slot) c++;
      if (candidates[c] === slot) table[c * stride + column] = recordedParts[r]!;
    }
    return;
  }
  let at = from;
  for (let c = 0; c < candidates.length; c++) {
    const slot = candidates[c]!;
    at = lowerBound(recordedSlots, slot, at, to);
    if (at < to && recordedSlots[at] === slot) table[c * stride + column] = recordedParts[at]!;
  }
}
