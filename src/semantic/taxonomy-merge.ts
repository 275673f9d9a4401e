/**
 * Seed: DiscoverTaxonomyMergeCandidates. Pairs of categories that look like synonyms, scored by
 * their names (same words up to plurals, an abbreviation, close spelling) and, when an embedder is
 * at hand, by the cosine similarity of their vectors. The scoring is pure; the query side lists
 * the categories and sizes each side so the smaller branch is the one proposed to move.
 */
import type { Embedder } from "../embed/embedder.ts";
import type { Store } from "../engine/store.ts";
import { GllamError } from "../engine/errors.ts";
import { parseScope } from "../memory/parse.ts";
import { normalizeEntityName, trigramDice } from "./names.ts";
import { cosineSimilarity, ensureNodeVectors } from "./node-vectors.ts";
import { countNodesByTaxonomyPrefix } from "./taxonomy.ts";
import { isUnderTaxonomyPath } from "./taxonomy-paths.ts";

/** "Relational Databases" -> "relational database": normalised words, simple plurals made singular. */
export function categoryNameKey(name: string): string {
  return normalizeEntityName(name)
    .split(" ")
    .map((word) => (word.length > 3 && word.endsWith("ies") ? `${word.slice(0, -3)}y` : word.length > 2 && /[^s]s$/.test(word) ? word.slice(0, -1) : word))
    .join(" ");
}

/** "db" abbreviates "database": same first letter, its letters in order, clearly shorter. */
export function isAbbreviation(short: string, long: string): boolean {
  const [a, b] = [short.replace(/ /g, ""), long.replace(/ /g, "")];
  if (a.length < 2 || a.length > 6 || b.length < a.length + 3 || a[0] !== b[0]) return false;
  let at = 0;
  for (const ch of b) if (ch === a[at]) at++;
  return at === a.length;
}

/** ABBREVIATION_SCORE for "DBs" ~ "Databases"; 1 for the same words; else spelling closeness. */
export const ABBREVIATION_SCORE = 0.85;
export function categoryNameSimilarity(a: string, b: string): number {
  const [x, y] = [categoryNameKey(a), categoryNameKey(b)];
  if (!x || !y) return 0;
  if (x === y) return 1;
  const [short, long] = x.length <= y.length ? [x, y] : [y, x];
  return Math.max(isAbbreviation(short, long) ? ABBREVIATION_SCORE : 0, trigramDice(x, y));
}

export type PairScore = { score: number; nameScore: number; embeddingScore: number | null };

/** Same name (up to case, punctuation, plurals) is decisive; otherwise names weigh 0.4 and vectors 0.6. */
export function scoreCategoryPair(a: { name: string; vector?: Float32Array }, b: { name: string; vector?: Float32Array }): PairScore {
  const nameScore = categoryNameSimilarity(a.name, b.name);
  const embeddingScore = a.vector && b.vector ? Math.max(0, cosineSimilarity(a.vector, b.vector)) : null;
  const score = nameScore === 1 || embeddingScore === null ? nameScore : 0.4 * nameScore + 0.6 * embeddingScore;
  return { score, nameScore, embeddingScore };
}

export type CategoryRef = { id: string; name: string; path: string; nodes: number };
export type TaxonomyMergeCandidate = PairScore & { from: CategoryRef; to: CategoryRef };

export type MergeDiscoveryOptions = { scope?: string; minScore?: number; maxCategories?: number };

/** Candidates best first. `from` is the smaller branch (by nodes at or below it), `to` the one it would join. */
export async function discoverTaxonomyMergeCandidates(store: Store, embedder: Embedder | undefined, options: MergeDiscoveryOptions = {}): Promise<TaxonomyMergeCandidate[]> {
  const scope = parseScope(options.scope);
  const minScore = options.minScore ?? 0.6;
  const maxCategories = options.maxCategories ?? 2000;
  if (!(minScore >= 0 && minScore <= 1)) throw new GllamError("E_BAD_INPUT", `minimum score must be in 0..1, got ${minScore}`);
  const db = store.dbRO();
  const categories = db
    .query<{ id: string; name: string; path: string }, [string, number]>(
      "SELECT id, name, taxonomy_path AS path FROM semantic_nodes WHERE scope = ? AND is_category = 1 AND taxonomy_path != '/' ORDER BY rowid LIMIT ?",
    )
    .all(scope, maxCategories);
  const vectors = embedder ? await ensureNodeVectors(store, embedder, categories.map((c) => c.id)) : new Map<string, Float32Array>();
  const sizes = new Map<string, number>();
  const size = (path: string) => sizes.get(path.toLowerCase()) ?? sizes.set(path.toLowerCase(), countNodesByTaxonomyPrefix(db, path, scope)).get(path.toLowerCase())!;
  const candidates: TaxonomyMergeCandidate[] = [];
  categories.forEach((a, i) => {
    for (const b of categories.slice(i + 1)) {
      // Nested or already one branch: consolidation cannot (or need not) merge these.
      if (isUnderTaxonomyPath(a.path, b.path) || isUnderTaxonomyPath(b.path, a.path)) continue;
      const pair = scoreCategoryPair({ name: a.name, vector: vectors.get(a.id) }, { name: b.name, vector: vectors.get(b.id) });
      if (pair.score < minScore) continue;
      const [x, y] = [{ ...a, nodes: size(a.path) }, { ...b, nodes: size(b.path) }];
      // The smaller branch moves; on a tie the newer category (listed later) joins the older.
      const [from, to] = y.nodes <= x.nodes ? [y, x] : [x, y];
      candidates.push({ ...pair, from, to });
    }
  });
  return candidates.toSorted((p, q) => q.score - p.score || (p.from.path < q.from.path ? -1 : 1));
}
