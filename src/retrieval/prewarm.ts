/**
 * A server's warm-up at start (`gllam serve`; what pg_prewarm and Solr's firstSearcher queries do
 * for theirs). At a million episodes a fresh process answered its first hundred recalls ~2x slower
 * than later ones: the probed cells' chunks were read out of SQLite and kept as recalls went, and
 * recall's code, buffers and posting pages were all cold. So: first the static cells of every
 * scope that has them are kept in the KNN worker's memory (prewarmStaticCells, while it is idle),
 * then a few recalls ask the large scopes' own latest turns, one at a time, as requests would.
 * Recall writes nothing, so the warm-up leaves the file as it was.
 */
import type { EmbeddingTiers } from "../embed/embedder.ts";
import type { Store } from "../engine/store.ts";
import { GllamError } from "../engine/errors.ts";
import { scopesWithStaticCells } from "../episodic/episode-cells.ts";
import { prewarmStaticCells, type StaticCellsPrewarm } from "../episodic/knn-beside.ts";
import { recentEpisodeTexts } from "../episodic/lookup.ts";
import { recall } from "./recall.ts";

/** Warm-up recalls by default: at 1M, 30 brought the first pass of the dev questions from ~9 ms p50 to ~6-7 (README, "A server warms recall up"). */
export const WARMUP_RECALLS = 32;
/** A warm-up asks one in every SPREAD of a scope's latest turns (not one conversation's run of turns), cut to a question's length. */
const SPREAD = 16;
const QUERY_CHARS = 80;

/**
 * What a prewarm did: the cells kept (undefined when the KNN worker could not keep them), the
 * warm-up recalls asked, the seconds it took, and whether the engine was closed before it was done.
 */
export type PrewarmReport = { cells: StaticCellsPrewarm | undefined; recalls: number; seconds: number; stopped: boolean };

/** Keeps the cells, then asks `recalls` warm-up recalls (0: none) spread over the scopes that have cells; nothing to do for a memory without them. */
export async function prewarmRecall(store: Store, tiers: EmbeddingTiers, options: { recalls?: number } = {}): Promise<PrewarmReport> {
  const recalls = options.recalls ?? WARMUP_RECALLS;
  if (!Number.isInteger(recalls) || recalls < 0 || recalls > 1000) throw new GllamError("E_BAD_INPUT", `recalls must be an integer in 0..1000, got ${recalls}`);
  const started = performance.now();
  // A store closed meanwhile (a server stopping) ends the warm-up quietly: what it did is reported, as stopped.
  let closed = false;
  const forget = store.onClose(() => (closed = true));
  let cells: StaticCellsPrewarm | undefined;
  let asked = 0;
  try {
    cells = closed ? undefined : await prewarmStaticCells(store);
    const scopes = closed ? [] : scopesWithStaticCells(store.dbRO());
    const each = Math.ceil(recalls / Math.max(1, scopes.length));
    const asks = takeInTurn(scopes.map((scope) => recentEpisodeTexts(store.dbRO(), scope, each, SPREAD, QUERY_CHARS).map((text) => ({ scope, text }))), recalls);
    for (const { scope, text } of asks) {
      if (closed) break;
      try {
        await recall(store, tiers, text, { scope });
      } catch (error) {
        if (closed) break;
        throw error;
      }
      asked++;
    }
  } finally {
    forget();
  }
  return { cells, recalls: asked, seconds: (performance.now() - started) / 1000, stopped: closed };
}

/** Up to `count` items taken from the lists in turn (the first of each, then the second of each...): a small count still reaches every list. */
export function takeInTurn<T>(lists: T[][], count: number): T[] {
  const taken: T[] = [];
  for (let i = 0; taken.length < count && lists.some((list) => i < list.length); i++) {
    for (const list of lists) if (i < list.length && taken.length < count) taken.push(list[i]!);
  }
  return taken;
}
