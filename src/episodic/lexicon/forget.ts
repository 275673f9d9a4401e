/**
 * Forgetting in the episode lexicon: the postings of forgotten turns leave at once, and the turn
 * after each (its context is re-indexed without the forgotten text) gets its postings again. Only
 * the rows of the terms those turns hold are rewritten (~1 ms per 100K postings), not their blocks.
 */
import type { Database } from "bun:sqlite";
import { invertTurns, readTurns, type IndexedRow } from "./build.ts";
import { decodePostings, encodePostings, flattenPostings } from "./postings.ts";

/** Turns of a scope's blocks as the lexicon holds them, read before they change. */
export type LexiconTurns = { scope: string; rows: IndexedRow[] };

/** The turns among ids that the scope's blocks cover (the rest are ranked from their text). */
export function readLexiconTurns(db: Database, scope: string, ids: number[]): LexiconTurns {
  const watermark = db.query<{ watermark: number | null }, [string]>("SELECT max(last_id) AS watermark FROM episode_lexicon_blocks WHERE scope = ?").get(scope)!.watermark;
  const covered = watermark === null ? [] : ids.filter((id) => id <= watermark);
  return { scope, rows: covered.length === 0 ? [] : readTurns(db, scope, covered) };
}

type BlockSpan = { block: number; last_id: number; documents: number; tokens: number };

/**
 * After `before.rows` were forgotten or re-indexed: in each block holding one, every row of a term
 * they held (or now hold) loses their old postings and gets their new ones; the block's counts follow.
 */
export function rewriteLexiconTurns(db: Database, before: LexiconTurns): void {
  if (before.rows.length === 0) return;
  const { scope } = before;
  const ids = before.rows.map((row) => row.id);
  const after = readTurns(db, scope, ids);
  const blocks = db
    .query<BlockSpan, [string, string]>(
      `SELECT DISTINCT b.block, b.last_id, b.documents, b.tokens FROM episode_lexicon_blocks b, json_each(?2) i
       WHERE b.scope = ?1 AND i.value BETWEEN b.block AND b.last_id ORDER BY b.block`,
    )
    .all(scope, JSON.stringify(ids));
  const changed = new Set(ids);
  const read = db.query<{ postings: Uint8Array }, [string, number, string]>("SELECT postings FROM episode_lexicon_postings WHERE scope = ? AND block = ? AND term = ?");
  const write = db.query("INSERT OR REPLACE INTO episode_lexicon_postings (scope, block, term, documents, postings) VALUES (?, ?, ?, ?, ?)");
  const remove = db.query("DELETE FROM episode_lexicon_postings WHERE scope = ? AND block = ? AND term = ?");
  const updateCounts = db.query("UPDATE episode_lexicon_blocks SET documents = ?, tokens = ? WHERE scope = ? AND block = ?");
  for (const block of blocks) {
    const inBlock = (rows: IndexedRow[]) => rows.filter((row) => row.id >= block.block && row.id <= block.last_id);
    const [oldRows, newRows] = [inBlock(before.rows), inBlock(after)];
    const old = invertTurns(oldRows);
    const now = invertTurns(newRows);
    for (const term of new Set([...old.byTerm.keys(), ...now.byTerm.keys()])) {
      const stored = read.get(scope, block.block, term);
      const kept = stored ? decodePostings(stored.postings, block.block).filter((posting) => !changed.has(posting.id)) : [];
      const flat = now.byTerm.get(term) ?? [];
      for (let i = 0; i < flat.length; i += 4) kept.push({ id: flat[i]!, content: flat[i + 1]!, context: flat[i + 2]!, length: flat[i + 3]! });
      if (kept.length === 0) {
        if (stored) remove.run(scope, block.block, term);
        continue;
      }
      kept.sort((a, b) => a.id - b.id);
      write.run(scope, block.block, term, kept.length, encodePostings(flattenPostings(kept), block.block));
    }
    updateCounts.run(block.documents - oldRows.length + newRows.length, block.tokens - old.tokens + now.tokens, scope, block.block);
  }
}
