/**
 * Keeping the episode lexicon: a scope that reaches 50K episodes gets one, and from then on
 * every 4,096 episodes past the last block become a new block, in the transaction that wrote
 * them. Blocks of a level merge eight at a time into one of the next level (a log-structured
 * merge), so a term is read from a few dozen rows at a million episodes. Forgetting rewrites
 * the rows of the forgotten turns' terms (forget.ts), so merges only concatenate.
 */
import type { Database } from "bun:sqlite";
import type { Store } from "../../engine/store.ts";
import { approximateEpisodeCount } from "../lookup.ts";
import { concatPostings, encodePostings } from "./postings.ts";
import { termNumbersOf, textsTokenisedHere, writerTerms } from "./term-numbers.ts";
import { lexiconTerms } from "./terms.ts";

/**
 * from: a scope gets a lexicon at this many episodes (where it gets vector cells too; a smaller
 * scope is ranked by FTS5 fast enough). block: episodes per new block. fanout: blocks of a level
 * merged into one of the next. Tests make them small.
 */
export type LexiconSizes = { from: number; block: number; fanout: number };
export const LEXICON_SIZES: LexiconSizes = { from: 50_000, block: 4_096, fanout: 8 };
/** Blocks one write makes at most (an ingest chunk is 5,000 turns: a backlog shrinks by ~3,000 per chunk). */
const MAX_BLOCKS_PER_WRITE = 2;

export type IndexedRow = { id: number; content: string; context: string; speaker: string; previousId: number | null };

// A conversation has a few speakers: their names' lengths in terms, counted once.
const speakerLengths = new Map<string, number>();
function speakerLength(speaker: string): number {
  let length = speakerLengths.get(speaker);
  if (length === undefined) {
    if (speakerLengths.size > 10_000) speakerLengths.clear();
    speakerLengths.set(speaker, (length = lexiconTerms(speaker).length));
  }
  return length;
}

// Per term number (writerTerms's), reused from block to block and grown with the numbering: a
// turn's counts of it in what was said and in the turn before, the last turn that counted it (a
// document once per turn), its documents, and where its next posting goes.
let contentCounts = new Int32Array(0);
let contextCounts = new Int32Array(0);
let lastTurn = new Int32Array(0);
let documentCounts = new Int32Array(0);
let placeOf = new Int32Array(0);
// The postings, flat: one buffer grown as needed (~4 MB a block; one per block was garbage each).
let flatBuffer = new Float64Array(0);

function fitTerms(count: number): void {
  if (count <= contentCounts.length) return;
  const size = Math.max(count, contentCounts.length * 2, 1024);
  contentCounts = new Int32Array(size);
  contextCounts = new Int32Array(size);
  documentCounts = new Int32Array(size);
  placeOf = new Int32Array(size);
  lastTurn = new Int32Array(size).fill(-1);
}

/**
 * The postings of consecutive turns: the terms met (writerTerms numbers, in the order met), and
 * each one's postings flat (id, content count, context count, length per episode, as
 * encodePostings reads them) at flat[starts[k] .. starts[k + 1]). `flat` is a view of a buffer the
 * next inversion reuses: read it at once.
 */
export type Inversion = { terms: number[]; starts: Int32Array; flat: Float64Array; tokens: number };

/** Inverts turns (ascending ids); a turn's terms are reused as the next turn's context. */
export function invertNumbered(rows: IndexedRow[]): Inversion {
  writerTerms.trim();
  const own = new Array<Int32Array>(rows.length);
  const before = new Array<Int32Array>(rows.length);
  const lengths = new Float64Array(rows.length);
  let tokens = 0;
  let previousId = -1;
  let previousTerms: Int32Array = new Int32Array(0);
  for (const [i, row] of rows.entries()) {
    own[i] = termNumbersOf(row.id, row.content);
    before[i] = row.previousId !== null && previousId === row.previousId ? previousTerms : termNumbersOf(row.previousId, row.context);
    previousId = row.id;
    previousTerms = own[i]!;
    // FTS5's length of a row counts every column, the speaker's name too: the same BM25.
    lengths[i] = own[i]!.length + before[i]!.length + speakerLength(row.speaker);
    tokens += lengths[i]!;
  }
  fitTerms(writerTerms.terms.length);
  // First the documents of each term, to lay its postings out in one array.
  const terms: number[] = [];
  const countDocuments = (list: Int32Array, turn: number) => {
    for (let j = 0; j < list.length; j++) {
      const term = list[j]!;
      if (lastTurn[term] === turn) continue;
      lastTurn[term] = turn;
      if (documentCounts[term]!++ === 0) terms.push(term);
    }
  };
  for (let i = 0; i < rows.length; i++) {
    countDocuments(own[i]!, i);
    countDocuments(before[i]!, i);
  }
  const starts = new Int32Array(terms.length + 1);
  for (let k = 0; k < terms.length; k++) {
    const term = terms[k]!;
    placeOf[term] = starts[k]!;
    starts[k + 1] = starts[k]! + 4 * documentCounts[term]!;
    documentCounts[term] = 0;
    lastTurn[term] = -1;
  }
  if (flatBuffer.length < starts[terms.length]!) flatBuffer = new Float64Array(Math.max(starts[terms.length]!, flatBuffer.length * 2));
  const flat = flatBuffer.subarray(0, starts[terms.length]!);
  // A posting per term of the turn, at the term's first occurrence (its counts then cleared).
  const place = (list: Int32Array, id: number, length: number) => {
    for (let j = 0; j < list.length; j++) {
      const term = list[j]!;
      const content = contentCounts[term]!;
      const context = contextCounts[term]!;
      if (content + context === 0) continue;
      const at = placeOf[term]!;
      flat[at] = id;
      flat[at + 1] = content;
      flat[at + 2] = context;
      flat[at + 3] = length;
      placeOf[term] = at + 4;
      contentCounts[term] = contextCounts[term] = 0;
    }
  };
  for (let i = 0; i < rows.length; i++) {
    const mine = own[i]!;
    const said = before[i]!;
    for (let j = 0; j < mine.length; j++) contentCounts[mine[j]!]!++;
    for (let j = 0; j < said.length; j++) contextCounts[said[j]!]!++;
    place(mine, rows[i]!.id, lengths[i]!);
    place(said, rows[i]!.id, lengths[i]!);
  }
  return { terms, starts, flat, tokens };
}

/** The postings of consecutive turns by term (flat, as Inversion's), for a few turns (ranking's tail, forgetting). */
export function invertTurns(rows: IndexedRow[]): { byTerm: Map<string, number[]>; tokens: number } {
  const { terms, starts, flat, tokens } = invertNumbered(rows);
  const byTerm = new Map(terms.map((term, k) => [writerTerms.terms[term]!, Array.from(flat.subarray(starts[k], starts[k + 1]))]));
  return { byTerm, tokens };
}

/** A term of a block to write: its episodes, and its postings' bytes (a view, bound at once). */
type BlockTerm = { term: string; documents: number; encode: () => Uint8Array };

function writeBlock(db: Database, scope: string, level: number, first: number, last: number, documents: number, tokens: number, terms: BlockTerm[]): void {
  db.query("INSERT INTO episode_lexicon_blocks (scope, block, last_id, level, documents, tokens) VALUES (?, ?, ?, ?, ?, ?)").run(scope, first, last, level, documents, tokens);
  const insert = db.query("INSERT INTO episode_lexicon_postings (scope, block, term, documents, postings) VALUES (?, ?, ?, ?, ?)");
  // In key order: the rows append to the table's b-tree.
  terms.sort((a, b) => (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
  for (const entry of terms) insert.run(scope, first, entry.term, entry.documents, entry.encode());
}

/** Indexes turns (ascending ids) as a block at the level. */
function writeTurns(db: Database, scope: string, level: number, first: number, last: number, rows: IndexedRow[]): void {
  const { terms, starts, flat, tokens } = invertNumbered(rows);
  const entries = terms.map((term, k) => ({
    term: writerTerms.terms[term]!,
    documents: (starts[k + 1]! - starts[k]!) / 4,
    encode: () => encodePostings(flat.subarray(starts[k], starts[k + 1]), first),
  }));
  writeBlock(db, scope, level, first, last, rows.length, tokens, entries);
}

// Every query here is driven by ids: `+scope` keeps SQLite from walking the scope's index
// instead (a million entries at 1M, ~100 ms, where the range holds a few thousand ids).
const READ_TURNS = `SELECT e.id, e.content, coalesce(p.content, '') AS context, e.speaker, p.id AS previousId
  FROM episodes e LEFT JOIN episodes p ON p.scope = e.scope AND p.session_id = e.session_id AND p.seq = e.seq - 1`;

/** The scope's turns among ids, as the index saw them, ascending. */
export function readTurns(db: Database, scope: string, ids: number[]): IndexedRow[] {
  return db.query<IndexedRow, [string, string]>(`${READ_TURNS} WHERE e.id IN (SELECT value FROM json_each(?)) AND +e.scope = ? ORDER BY e.id`).all(JSON.stringify(ids), scope);
}

/** The scope's turns past `after` that hold a word of an FTS5 expression, ascending. */
export function readMatchingTurns(db: Database, scope: string, match: string, after: number): IndexedRow[] {
  return db
    .query<IndexedRow, [string, number, string]>(`${READ_TURNS} WHERE e.id IN (SELECT rowid FROM episodes_fts WHERE episodes_fts MATCH ? AND rowid > ?) AND +e.scope = ? ORDER BY e.id`)
    .all(match, after, scope);
}

/** The scope's turns past `after`, at most `limit`, ascending. */
export function readTurnsAfter(db: Database, scope: string, after: number, limit: number): IndexedRow[] {
  return db.query<IndexedRow, [number, string, number]>(`${READ_TURNS} WHERE e.id > ? AND +e.scope = ? ORDER BY e.id LIMIT ?`).all(after, scope, limit);
}

/**
 * Indexes the scope's episodes after `after`, a block at a time, at most MAX_BLOCKS_PER_WRITE (a
 * shorter rest, or more, stays for the next write): a scope passing 50K has 12 blocks to make,
 * spread over its next writes so none of them holds 50K turns' inversion at once.
 */
function indexTail(db: Database, scope: string, after: number, sizes: LexiconSizes): number {
  // Ids only grow (AUTOINCREMENT): fewer ids than a block past the last block hold fewer episodes,
  // known from the rowid's end, no count (a write calls this per batch: the bench's per conversation).
  const last = db.query<{ id: number | null }, []>("SELECT max(id) AS id FROM episodes").get()!.id ?? 0;
  if (last - after < sizes.block) return 0;
  // Counting reads the ids past the last block (every scope's: a range of the rowid), no text.
  const waiting = db.query<{ n: number }, [number, string, number]>("SELECT count(*) AS n FROM (SELECT 1 FROM episodes WHERE id > ? AND +scope = ? LIMIT ?)");
  if (waiting.get(after, scope, sizes.block)!.n < sizes.block) return 0;
  let made = 0;
  for (; made < MAX_BLOCKS_PER_WRITE; made++) {
    const rows = readTurnsAfter(db, scope, after, sizes.block);
    if (rows.length < sizes.block) break;
    writeTurns(db, scope, 0, rows[0]!.id, rows.at(-1)!.id, rows);
    after = rows.at(-1)!.id;
    mergeLevels(db, scope, sizes.fanout);
  }
  return made;
}

type BlockRow = { block: number; last_id: number; level: number; documents: number; tokens: number };

/** Merges the oldest `fanout` blocks of a level while a level has that many. */
function mergeLevels(db: Database, scope: string, fanout: number): void {
  for (;;) {
    const blocks = db.query<BlockRow, [string]>("SELECT block, last_id, level, documents, tokens FROM episode_lexicon_blocks WHERE scope = ? ORDER BY block").all(scope);
    const byLevel = Map.groupBy(blocks, (block) => block.level);
    const full = [...byLevel.values()].find((list) => list.length >= fanout);
    if (!full) return;
    mergeBlocks(db, scope, full.slice(0, fanout));
  }
}

/** The blocks (consecutive) as one block of the next level: each term's postings concatenated. */
function mergeBlocks(db: Database, scope: string, blocks: BlockRow[]): void {
  const first = blocks[0]!.block;
  const last = blocks.at(-1)!.last_id;
  const list = JSON.stringify(blocks.map((block) => block.block));
  const rows = db
    .query<{ block: number; term: string; documents: number; postings: Uint8Array }, [string, string]>(
      "SELECT block, term, documents, postings FROM episode_lexicon_postings WHERE scope = ? AND block IN (SELECT value FROM json_each(?)) ORDER BY term, block",
    )
    .all(scope, list);
  const merged = [...Map.groupBy(rows, (row) => row.term)].map(([term, parts]) => ({
    term,
    documents: parts.reduce((sum, part) => sum + part.documents, 0),
    encode: () => concatPostings(parts.map((part) => ({ bytes: part.postings, base: part.block })), first),
  }));
  db.query("DELETE FROM episode_lexicon_postings WHERE scope = ? AND block IN (SELECT value FROM json_each(?))").run(scope, list);
  db.query("DELETE FROM episode_lexicon_blocks WHERE scope = ? AND block IN (SELECT value FROM json_each(?))").run(scope, list);
  const documents = blocks.reduce((sum, block) => sum + block.documents, 0);
  const tokens = blocks.reduce((sum, block) => sum + block.tokens, 0);
  writeBlock(db, scope, blocks[0]!.level + 1, first, last, documents, tokens, merged);
}

/**
 * After episodes were written to these scopes (inside the writing transaction; returns the blocks
 * made): a scope with a
 * lexicon indexes its new episodes once a block of them wait; a scope reaching `sizes.from` gets one
 * (its episodes are counted only once the file holds that many).
 */
export function maintainLexicon(db: Database, scopes: Iterable<string>, sizes: LexiconSizes = LEXICON_SIZES): number {
  let made = 0;
  for (const scope of scopes) {
    const state = db.query<{ watermark: number | null }, [string]>("SELECT max(last_id) AS watermark FROM episode_lexicon_blocks WHERE scope = ?").get(scope)!;
    if (state.watermark !== null) {
      made += indexTail(db, scope, state.watermark, sizes);
    } else if (approximateEpisodeCount(db) >= sizes.from && db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM episodes WHERE scope = ?").get(scope)!.n >= sizes.from) {
      made += indexTail(db, scope, 0, sizes);
    }
  }
  if (made > 0) collectGarbage(made);
  return made;
}

/**
 * Makes every block the scope is owed now, two per transaction (the sleep cycle's step, for a
 * scope whose writes stopped with a backlog: a file made before the lexicon, or one past 50K
 * whose later writes were few). Returns the blocks made.
 */
export function catchUpLexicon(store: Store, scope: string, sizes: LexiconSizes = LEXICON_SIZES): number {
  let total = 0;
  for (;;) {
    const made = store.transaction(() => maintainLexicon(store.db(), [scope], sizes));
    if (made === 0) return total;
    total += made;
  }
}

// Making blocks leaves garbage JSC collects too late: short-lived strings and arrays of the turns
// tokenised here (an ingest of 100K turns peaked 150-250 MB higher, test/episodic/ingest-memory.test.ts),
// and, when the ingest worker numbered the terms (term-numbers.ts), its replies' buffers and the
// merges' postings (the scale bench's ingest to 1M peaked 126 MB higher, 557 -> 683 MB, and its
// queries began from there). A full collection after every block cost 13% of an ingest's CPU;
// after every fourth block made or 16K turns tokenised here, whichever comes first, ~4%.
const BLOCKS_BETWEEN_COLLECTIONS = 4;
const TOKENISED_BETWEEN_COLLECTIONS = 4 * LEXICON_SIZES.block;
let blocksSinceCollection = 0;
let tokenisedAtCollection = 0;

function collectGarbage(made: number): void {
  blocksSinceCollection += made;
  if (blocksSinceCollection < BLOCKS_BETWEEN_COLLECTIONS && textsTokenisedHere() - tokenisedAtCollection < TOKENISED_BETWEEN_COLLECTIONS) return;
  Bun.gc(true);
  blocksSinceCollection = 0;
  tokenisedAtCollection = textsTokenisedHere();
}
