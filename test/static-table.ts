/**
 * The static table the tests use: the first 2,000 model pieces and the 2,000 most frequent words,
 * distilled like the shipped one (without its dimension reduction) and cached, so a fresh machine
 * pays about ten seconds once. Tests and the CLI subprocesses they start find it through
 * GLLAM_STATIC_TABLE, set by the preload (test/setup.ts).
 */
import wordListText from "../assets/wordlist/en-subtlex-us-30k.txt" with { type: "text" };
import { ensureStaticTableFile } from "../src/embed/static/bundled-table.ts";
import { planStaticTable, type StaticTablePlan } from "../src/embed/static/plan.ts";
import type { StaticEmbedder } from "../src/embed/static/static-embedder.ts";
import { parseWordList } from "../src/embed/static/table.ts";

export const WORD_LIST = parseWordList(wordListText);

export function testTablePlan(alsoWords: Iterable<string> = []): StaticTablePlan {
  return planStaticTable(WORD_LIST, { topWords: 2000, pieceRows: 2000, alsoWords });
}

export function ensureTestStaticTable(alsoWords?: Iterable<string>): Promise<string> {
  return ensureStaticTableFile(testTablePlan(alsoWords));
}

/** A static embedder whose every embedding fails ("boom"): what it was called in must be taken back. */
export function failingStaticEmbedder(base: StaticEmbedder): StaticEmbedder {
  return {
    ...base,
    embedSync: () => {
      throw new Error("boom");
    },
  };
}
