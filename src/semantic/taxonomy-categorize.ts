/**
 * Seed: ProcessUncategorizedBatch. Orphans (taxonomy_path '/') are filed under a category node
 * with an `is_a` link, decoupled from ingest. A node that already `is_a` a category goes under it;
 * the others are placed by a Categorizer: the default compares embeddings with the existing
 * categories and falls back to a category named after the node's type; an LLM can take its place.
 */
import * as v from "valibot";
import type { Embedder } from "../embed/embedder.ts";
import type { Store } from "../engine/store.ts";
import { GllamError } from "../engine/errors.ts";
import { NODE_TYPES, TaxonomyPathSchema, type SemanticNode } from "../memory/types.ts";
import { describeIssues, parseScope } from "../memory/parse.ts";
import { insertEngineLink } from "./links.ts";
import { cosineSimilarity, ensureNodeVectors } from "./node-vectors.ts";
import { freeNodeId, NODE_COLUMNS, toNode, upsertNode, type NodeRow } from "./nodes.ts";
import { wouldCreateTaxonomyCycle } from "./taxonomy.ts";
import { joinTaxonomyPath, normalizeTaxonomyPath, ROOT_PATH, taxonomySegment, taxonomySegments } from "./taxonomy-paths.ts";

export type OrphanNode = Pick<SemanticNode, "id" | "name" | "type" | "contextPrompt" | "aliases"> & { vector?: Float32Array };
export type CategoryCandidate = { id: string; name: string; path: string; vector?: Float32Array };

const DecisionSchema = v.object({
  nodeId: v.string(),
  path: TaxonomyPathSchema,
  score: v.optional(v.number()),
  reason: v.optional(v.string(), ""),
});
export type CategoryDecision = v.InferInput<typeof DecisionSchema>;

/** Files orphans under paths (existing or new). An LLM-backed one can implement this later. */
export interface Categorizer {
  readonly name: string;
  /** The default compares vectors; a text-only categorizer (an LLM) sets this false. */
  readonly needsVectors: boolean;
  categorize(orphans: OrphanNode[], categories: CategoryCandidate[]): Promise<CategoryDecision[]>;
}

/** "database" -> "/Database": where a node goes when no category is close enough. */
export const typeCategoryPath = (type: string) => `/${taxonomySegment(type.charAt(0).toUpperCase() + type.slice(1))}`;

/** Pure: the nearest category by cosine similarity when it reaches minSimilarity, else the node type's category. */
export function categorizeByEmbedding(orphans: readonly OrphanNode[], categories: readonly CategoryCandidate[], minSimilarity: number): CategoryDecision[] {
  return orphans.map((orphan) => {
    let best: { category: CategoryCandidate; score: number } | undefined;
    for (const category of categories) {
      if (!orphan.vector || !category.vector) continue;
      const score = cosineSimilarity(orphan.vector, category.vector);
      if (!best || score > best.score) best = { category, score };
    }
    if (best && best.score >= minSimilarity) {
      return { nodeId: orphan.id, path: best.category.path, score: best.score, reason: `nearest category "${best.category.name}" (cosine ${best.score.toFixed(2)})` };
    }
    const nearest = best ? ` (nearest "${best.category.name}" at ${best.score.toFixed(2)})` : "";
    return { nodeId: orphan.id, path: typeCategoryPath(orphan.type), reason: `no category within cosine ${minSimilarity}${nearest}: filed by type "${orphan.type}"` };
  });
}

export function createEmbeddingCategorizer(options: { minSimilarity?: number } = {}): Categorizer {
  const minSimilarity = options.minSimilarity ?? 0.5;
  return { name: "embedding", needsVectors: true, categorize: async (orphans, categories) => categorizeByEmbedding(orphans, categories, minSimilarity) };
}

export type CategorizedNode = { nodeId: string; path: string; categoryId: string; reason: string; score?: number; linked: boolean };
export type UncategorizedBatchReport = {
  categorized: CategorizedNode[];
  createdCategories: string[];
  skipped: { nodeId: string; reason: string }[];
  /** Orphans still waiting after this batch. */
  remaining: number;
};

export type UncategorizedBatchOptions = { scope?: string; categorizer?: Categorizer; now?: number };

/** Engine nodes (contradictions, fallacies, sources) are not filed in the domain taxonomy. */
const ORPHANS_SQL = `FROM semantic_nodes WHERE scope = ?1 AND taxonomy_path = '/' AND is_category = 0
  AND type NOT IN ('${NODE_TYPES.contradiction}', '${NODE_TYPES.fallacy}', '${NODE_TYPES.source}', '${NODE_TYPES.category}')`;

export function countUncategorized(store: Store, scope?: string): number {
  return store.dbRO().query<{ n: number }, [string]>(`SELECT count(*) AS n ${ORPHANS_SQL}`).get(parseScope(scope))?.n ?? 0;
}

export async function processUncategorizedBatch(store: Store, embedder: Embedder, n = 50, options: UncategorizedBatchOptions = {}): Promise<UncategorizedBatchReport> {
  if (!Number.isInteger(n) || n < 1 || n > 10_000) throw new GllamError("E_BAD_INPUT", `batch size must be an integer in 1..10000, got ${n}`);
  const scope = parseScope(options.scope);
  const categorizer = options.categorizer ?? createEmbeddingCategorizer();
  const db = store.dbRO();
  const orphans = db.query<NodeRow, [string, number]>(`SELECT ${NODE_COLUMNS} ${ORPHANS_SQL} ORDER BY rowid LIMIT ?2`).all(scope, n).map(toNode);
  const explicit = new Map(
    db
      .query<{ nodeId: string; categoryId: string; path: string }, [string, string]>(
        `SELECT l.source_id AS nodeId, c.id AS categoryId, c.taxonomy_path AS path FROM semantic_links l JOIN semantic_nodes c ON c.id = l.target_id
         WHERE l.source_id IN (SELECT value FROM json_each(?1)) AND l.scope = ?2 AND l.relationship IN ('is_a', 'subclass_of') AND l.expired_at IS NULL
           AND c.is_category = 1 AND c.taxonomy_path != '/'
         ORDER BY l.trust_weight ASC, l.id DESC`,
      )
      .all(JSON.stringify(orphans.map((o) => o.id)), scope)
      // Later rows win in the Map: the most trusted, then the oldest link.
      .map((row) => [row.nodeId, row] as const),
  );
  const rest: OrphanNode[] = orphans.filter((o) => !explicit.has(o.id));
  const decisions = rest.length > 0 ? await decide(store, embedder, categorizer, scope, rest) : [];
  const report: UncategorizedBatchReport = { categorized: [], createdCategories: [], skipped: [], remaining: 0 };
  const now = options.now ?? Date.now();
  store.transaction(() => {
    for (const [nodeId, { categoryId, path }] of explicit) {
      if (fileNode(store, nodeId, path, now)) report.categorized.push({ nodeId, path, categoryId, reason: "already is_a this category", linked: false });
    }
    for (const decision of validDecisions(decisions, rest, report)) {
      const categoryId = ensureCategoryPath(store, scope, decision.path, now, report.createdCategories);
      if (wouldCreateTaxonomyCycle(store, decision.nodeId, categoryId, { now, fromWriter: true, scope }).wouldCycle) {
        report.skipped.push({ nodeId: decision.nodeId, reason: `is_a ${decision.path} would close a taxonomy cycle` });
        continue;
      }
      if (!fileNode(store, decision.nodeId, decision.path, now)) continue;
      insertEngineLink(store, { scope, sourceId: decision.nodeId, targetId: categoryId, relationship: "is_a", metadata: { categorizer: categorizer.name, reason: decision.reason, score: decision.score } }, now);
      report.categorized.push({ ...decision, categoryId, linked: true });
    }
  });
  report.remaining = countUncategorized(store, scope);
  return report;
}

async function decide(store: Store, embedder: Embedder, categorizer: Categorizer, scope: string, orphans: OrphanNode[]): Promise<CategoryDecision[]> {
  const categories: CategoryCandidate[] = store
    .dbRO()
    .query<{ id: string; name: string; path: string }, [string]>(
      "SELECT id, name, taxonomy_path AS path FROM semantic_nodes WHERE scope = ? AND is_category = 1 AND taxonomy_path != '/' ORDER BY taxonomy_path, rowid",
    )
    .all(scope);
  if (categorizer.needsVectors) {
    const vectors = await ensureNodeVectors(store, embedder, [...orphans, ...categories].map((x) => x.id));
    for (const item of [...orphans, ...categories]) item.vector = vectors.get(item.id);
  }
  return categorizer.categorize(orphans, categories);
}

/** Checks a categorizer's answer (an LLM's may be anything): one decision per orphan of the batch, valid paths. */
function validDecisions(decisions: unknown, batch: OrphanNode[], report: UncategorizedBatchReport): (CategoryDecision & { reason: string })[] {
  if (!Array.isArray(decisions)) {
    for (const orphan of batch) report.skipped.push({ nodeId: orphan.id, reason: "the categorizer returned no list" });
    return [];
  }
  const wanted = new Set(batch.map((o) => o.id));
  const valid: (CategoryDecision & { reason: string })[] = [];
  for (const raw of decisions) {
    const parsed = v.safeParse(DecisionSchema, raw);
    const nodeId = typeof raw?.nodeId === "string" ? raw.nodeId : "?";
    const ours = wanted.delete(nodeId);
    if (!parsed.success) report.skipped.push({ nodeId, reason: `bad categorizer answer: ${describeIssues(parsed.issues)}` });
    else if (!ours) report.skipped.push({ nodeId, reason: "the categorizer answered for a node not in the batch, or twice" });
    else if (normalizeTaxonomyPath(parsed.output.path) === ROOT_PATH) report.skipped.push({ nodeId, reason: "the categorizer chose the root" });
    else valid.push({ ...parsed.output, path: normalizeTaxonomyPath(parsed.output.path) });
  }
  for (const nodeId of wanted) report.skipped.push({ nodeId, reason: "the categorizer gave no answer" });
  return valid;
}

/** Files a node that is still an orphan (another process may have filed it meanwhile). */
function fileNode(store: Store, nodeId: string, path: string, now: number): boolean {
  return store.db().query("UPDATE semantic_nodes SET taxonomy_path = ?, updated_at = ? WHERE id = ? AND taxonomy_path = '/'").run(path, now, nodeId).changes === 1;
}

/** The category node at a path; when absent, created with its missing ancestors, each subclass_of its parent. */
export function ensureCategoryPath(store: Store, scope: string, path: string, now: number, created: string[] = []): string {
  const find = store
    .db()
    .query<{ id: string }, [string, string]>("SELECT id FROM semantic_nodes WHERE scope = ? AND is_category = 1 AND taxonomy_path = ? COLLATE NOCASE ORDER BY rowid LIMIT 1");
  const existing = find.get(scope, path)?.id;
  if (existing) return existing;
  let parentId: string | undefined;
  let at = ROOT_PATH;
  for (const segment of taxonomySegments(path)) {
    at = joinTaxonomyPath(at, segment);
    let id = find.get(scope, at)?.id;
    if (!id) {
      // "category:Engineering:Web": segments hold no "/", so the slug is one.
      id = freeNodeId(store, scope, `category:${taxonomySegments(at).join(":")}`);
      upsertNode(store, { id, scope, name: segment, type: NODE_TYPES.category, isCategory: true, taxonomyPath: at, metadata: { createdBy: "taxonomy" } });
      if (parentId) insertEngineLink(store, { scope, sourceId: id, targetId: parentId, relationship: "subclass_of", metadata: { reason: "category path" } }, now);
      created.push(id);
    }
    parentId = id;
  }
  if (!parentId) throw new GllamError("E_BAD_INPUT", "the root is not a category");
  return parentId;
}

