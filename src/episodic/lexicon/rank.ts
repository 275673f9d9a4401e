/**
 * BM25 over the episode lexicon: every posting of every query term is scored (no pruning, the
 * same ranking as ranking every match), at a few nanoseconds a posting instead of FTS5's ~1 µs per
 * matching episode. The episodes past the last block (fewer than a block) are found through FTS5
 * and scored from their text with the lexicon's own terms. FTS5's bm25() formula and constants.
 */
import type { Database } from "bun:sqlite";
import { accumulatePostings, type Accumulator, type TermWeights } from "./postings.ts";
import { invertTurns, LEXICON_SIZES, readMatchingTurns } from "./build.ts";
import { lexiconTerms } from "./terms.ts";

const K1 = 1.2;
const B = 0.75;

/** A term's constants for accumulatePostings: bm25Part with the length's share precomputed. */
function termWeights(idf: number, averageLength: number, contextWeight: number): TermWeights {
  return { weight: idf * (K1 + 1), norm: K1 * (1 - B), lengthFactor: (K1 * B) / averageLength, contextWeight };
}

/** One posting added outside a block (an episode past the last block). */
function addPosting(into: Accumulator, id: number, frequency: number, length: number, weights: TermWeights): void {
  if (frequency === 0) return;
  const slot = id - into.first;
  if (into.scores[slot] === 0) into.touched[into.count++] = slot;
  into.scores[slot]! += (weights.weight * frequency) / (frequency + weights.norm + weights.lengthFactor * length);
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

/**
 * The scope's episodes past the watermark holding a query word (FTS5 finds them) as postings of
 * the query's terms, inverted as a block's are; undefined while more than TAIL_MAX wait.
 */
function readTail(db: Database, scope: string, watermark: number, match: string): { byTerm: Map<string, number[]>; documents: number; lastId: number } | undefined {
  const documents = db.query<{ n: number }, [number, string, number]>("SELECT count(*) AS n FROM (SELECT 1 FROM episodes WHERE id > ? AND +scope = ? LIMIT ?)").get(watermark, scope, TAIL_MAX + 1)!.n;
  if (documents > TAIL_MAX) return undefined;
  const rows = readMatchingTurns(db, scope, match, watermark);
  return { byTerm: invertTurns(rows).byTerm, documents, lastId: rows.at(-1)?.id ?? watermark };
}

/** Scores, reused across queries (zeroed after each): one slot per episode id in the scope's range. */
let scores = new Float64Array(0);

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

/** The k best slots of the accumulator, best first (ties by id). */
function topSlots(into: Accumulator, k: number): number[] {
  const touched = into.touched.subarray(0, into.count);
  if (touched.length === 0) return [];
  const values = new Float64Array(touched.length);
  for (let i = 0; i < touched.length; i++) values[i] = scores[touched[i]!]!;
  const threshold = kthLargest(values, Math.min(k, values.length));
  const best: number[] = [];
  for (let i = 0; i < touched.length; i++) if (scores[touched[i]!]! >= threshold) best.push(touched[i]!);
  return best.sort((a, b) => scores[b]! - scores[a]! || a - b).slice(0, k);
}

/** Episodes past the last block ranked from their text; more wait only while a lexicon is being built. */
const TAIL_MAX = 3 * LEXICON_SIZES.block;

/**
 * The scope's best `limit` episodes by BM25 over the query words (best first), or undefined when
 * the scope has no lexicon, or one still being built (more than TAIL_MAX episodes past its
 * blocks). `match` is the words' FTS5 expression, for the episodes past the blocks.
 */
export function rankByLexicon(db: Database, scope: string, words: string[], match: string, limit: number, contextWeight: number): number[] | undefined {
  if (!hasLexicon(db, scope)) return undefined;
  const blocks = db.query<{ block: number; last_id: number; documents: number; tokens: number }, [string]>("SELECT block, last_id, documents, tokens FROM episode_lexicon_blocks WHERE scope = ? ORDER BY block").all(scope);
  const terms = [...new Set(words.flatMap(lexiconTerms))];
  if (terms.length === 0) return [];
  const first = blocks[0]!.block;
  const watermark = Math.max(...blocks.map((block) => block.last_id));
  const tail = readTail(db, scope, watermark, match);
  if (!tail) return undefined;
  const indexed = blocks.reduce((sum, block) => sum + block.documents, 0);
  const documents = indexed + tail.documents;
  const averageLength = blocks.reduce((sum, block) => sum + block.tokens, 0) / Math.max(1, indexed);
  const span = tail.lastId - first + 1;
  if (scores.length < span) scores = new Float64Array(Math.ceil(span * 1.25));
  const read = db.query<{ block: number; documents: number; postings: Uint8Array }, [string, string, string]>(
    "SELECT block, documents, postings FROM episode_lexicon_postings WHERE scope = ? AND term = ? AND block IN (SELECT value FROM json_each(?))",
  );
  const blockIds = JSON.stringify(blocks.map((block) => block.block));
  const postings = terms.map((term) => read.all(scope, term, blockIds));
  const tailPostings = terms.map((term) => tail.byTerm.get(term) ?? []);
  const total = postings.flat().reduce((sum, row) => sum + row.documents, 0) + tailPostings.reduce((sum, flat) => sum + flat.length / 4, 0);
  const into: Accumulator = { first, scores, touched: new Int32Array(total), count: 0 };
  postings.forEach((rows, t) => {
    const flat = tailPostings[t]!;
    const holding = rows.reduce((sum, row) => sum + row.documents, 0) + flat.length / 4;
    const weights = termWeights(bm25Idf(documents, holding), averageLength, contextWeight);
    for (const row of rows) accumulatePostings(row.postings, row.block, weights, into);
    for (let i = 0; i < flat.length; i += 4) addPosting(into, flat[i]!, flat[i + 1]! + contextWeight * flat[i + 2]!, flat[i + 3]!, weights);
  });
  // Every posting is a live episode's: forgetting rewrites the rows of the forgotten turns' terms (forget.ts).
  const best = topSlots(into, limit).map((slot) => slot + first);
  for (let i = 0; i < into.count; i++) scores[into.touched[i]!] = 0;
  return best;
}
