/**
 * Seed: ConsolidateTaxonomyBranch. Moves every node at or below `from` to the same place below
 * `to`, 500 rows per write transaction with a short pause between them, so readers and other
 * writers are never stalled for long. Each row's path changes atomically, so at every moment a
 * node is under exactly one of the two branches. Progress lives in maintenance_jobs, written in the
 * same transaction as each batch: after a crash, calling it again (or resumeTaxonomyConsolidations)
 * carries on. Category nodes are kept; the old branch's root category is linked to the new one.
 * Recipes bound to the branch (procedural_knowledge.taxonomy_path) move with it at the end.
 */
import type { Store } from "../engine/store.ts";
import { GllamError } from "../engine/errors.ts";
import { finishJob, listRunningJobs, saveJobState, startJob } from "../engine/jobs.ts";
import { moveProcedureBranch } from "../procedural/taxonomy.ts";
import { insertEngineLink } from "./links.ts";
import { parseScope } from "../memory/parse.ts";
import { readNode } from "./nodes.ts";
import { countNodesByTaxonomyPrefix, UNDER_PREFIX_SQL, underPrefixParams, wouldCreateTaxonomyCycle } from "./taxonomy.ts";
import { isUnderTaxonomyPath, normalizeTaxonomyPath, ROOT_PATH } from "./taxonomy-paths.ts";

export const CONSOLIDATE_JOB = "consolidate_taxonomy";

export type ConsolidationProgress = { batches: number; moved: number; total: number };

export type ConsolidationOptions = {
  scope?: string;
  /** Rows per write transaction (default 500). */
  batchSize?: number;
  /** Pause between transactions, in ms (default 10), so other writers get the lock. */
  pauseMs?: number;
  onBatch?: (progress: ConsolidationProgress) => void;
};

export type ConsolidationReport = {
  jobId: number;
  from: string;
  to: string;
  /** Nodes moved by this call. */
  moved: number;
  /** Nodes moved by the job, counting runs before a crash. */
  totalMoved: number;
  /** Recipes bound to the branch, moved with it at the end. */
  movedProcedures: number;
  batches: number;
  resumed: boolean;
  /** The old branch's root category, now linked subclass_of the new branch's root (when both exist). */
  fromCategoryId: string | null;
  toCategoryId: string | null;
  seconds: number;
};

type JobState = { moved: number; batches: number; fromCategoryId: string | null; toCategoryId: string | null; movedProcedures?: number };

function checkBranches(fromInput: string, toInput: string): { from: string; to: string } {
  const from = normalizeTaxonomyPath(fromInput, "from");
  const to = normalizeTaxonomyPath(toInput, "to");
  if (from === ROOT_PATH || to === ROOT_PATH) throw new GllamError("E_BAD_INPUT", "cannot consolidate the root: name two branches like /Engineering/DBs and /Engineering/Databases");
  if (isUnderTaxonomyPath(to, from) || isUnderTaxonomyPath(from, to)) {
    throw new GllamError("E_BAD_INPUT", `cannot merge ${from} into ${to}: one branch contains the other (merge sibling or cousin branches)`);
  }
  return { from, to };
}

/** Parameters: to, length of from, now, scope, the two of underPrefixParams(from), batch size. */
export const MOVE_BATCH_SQL = `UPDATE semantic_nodes SET taxonomy_path = ?1 || substr(taxonomy_path, ?2 + 1), updated_at = ?3
  WHERE rowid IN (SELECT rowid FROM semantic_nodes WHERE scope = ?4 AND ${UNDER_PREFIX_SQL("?5", "?6")} LIMIT ?7)`;

const categoryAt = (store: Store, scope: string, path: string) =>
  store
    .db()
    .query<{ id: string }, [string, string]>("SELECT id FROM semantic_nodes WHERE scope = ? AND is_category = 1 AND taxonomy_path = ? COLLATE NOCASE ORDER BY rowid LIMIT 1")
    .get(scope, path)?.id ?? null;

export async function consolidateTaxonomyBranch(store: Store, fromInput: string, toInput: string, options: ConsolidationOptions = {}): Promise<ConsolidationReport> {
  const { from, to } = checkBranches(fromInput, toInput);
  const scope = parseScope(options.scope);
  const batchSize = options.batchSize ?? 500;
  const pauseMs = options.pauseMs ?? 10;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 100_000) throw new GllamError("E_BAD_INPUT", `batch size must be an integer in 1..100000, got ${batchSize}`);
  if (!Number.isFinite(pauseMs) || pauseMs < 0) throw new GllamError("E_BAD_INPUT", `pause must be a non-negative number of ms, got ${pauseMs}`);
  const started = performance.now();
  const db = store.db();
  const same = (a: unknown, b: string) => typeof a === "string" && a.toLowerCase() === b.toLowerCase();
  const { job, state, resumed } = store.transaction(() => {
    const open = listRunningJobs(db, CONSOLIDATE_JOB, scope).find((j) => same(j.params.from, from) && same(j.params.to, to));
    if (open) return { job: open, state: open.state as JobState, resumed: true };
    const fresh: JobState = { moved: 0, batches: 0, fromCategoryId: categoryAt(store, scope, from), toCategoryId: categoryAt(store, scope, to) };
    return { job: startJob(db, { kind: CONSOLIDATE_JOB, scope, params: { from, to }, state: fresh }), state: fresh, resumed: false };
  });
  const total = state.moved + countNodesByTaxonomyPrefix(store.dbRO(), from, scope);
  const move = db.query<never, [string, number, number, string, string, number, number]>(MOVE_BATCH_SQL);
  const [pattern, fromLength] = underPrefixParams(from);
  let moved = 0;
  let batches = 0;
  for (;;) {
    const changed = store.transaction(() => {
      const n = move.run(to, fromLength, Date.now(), scope, pattern, fromLength, batchSize).changes;
      if (n > 0) {
        state.moved += n;
        state.batches++;
        saveJobState(db, job.id, state);
      }
      return n;
    });
    if (changed === 0) break;
    moved += changed;
    batches++;
    options.onBatch?.({ batches: state.batches, moved: state.moved, total });
    await Bun.sleep(pauseMs);
  }
  store.transaction(() => {
    state.movedProcedures = moveProcedureBranch(db, scope, from, to, Date.now());
    linkMergedRoots(store, scope, state, from, to);
    finishJob(db, job.id, "done", state);
  });
  return { jobId: job.id, from, to, moved, totalMoved: state.moved, movedProcedures: state.movedProcedures ?? 0, batches, resumed, fromCategoryId: state.fromCategoryId, toCategoryId: state.toCategoryId, seconds: (performance.now() - started) / 1000 };
}

/** The old root category stays (seed: never delete category nodes), as a subclass of the new root, and says where it went. */
function linkMergedRoots(store: Store, scope: string, state: JobState, from: string, to: string): void {
  const { fromCategoryId, toCategoryId } = state;
  if (!fromCategoryId || !toCategoryId || fromCategoryId === toCategoryId) return;
  const old = readNode(store, fromCategoryId, scope, true);
  if (!old || !readNode(store, toCategoryId, scope, true)) return;
  const now = Date.now();
  store
    .db()
    .query("UPDATE semantic_nodes SET metadata = json_set(metadata, '$.mergedInto', ?, '$.mergedFrom', ?, '$.mergedAt', ?), updated_at = ? WHERE id = ?")
    .run(toCategoryId, from, now, now, fromCategoryId);
  const linked = store
    .db()
    .query<{ id: number }, [string, string]>("SELECT id FROM semantic_links WHERE source_id = ? AND target_id = ? AND relationship = 'subclass_of' AND expired_at IS NULL")
    .get(fromCategoryId, toCategoryId);
  if (linked) return;
  if (wouldCreateTaxonomyCycle(store, fromCategoryId, toCategoryId, { now, fromWriter: true, scope }).wouldCycle) return;
  insertEngineLink(store, { scope, sourceId: fromCategoryId, targetId: toCategoryId, relationship: "subclass_of", metadata: { reason: `taxonomy consolidation ${from} -> ${to}` } }, now);
}

/** Finishes every consolidation a crash left running (sleep cycles call this first). */
export async function resumeTaxonomyConsolidations(store: Store, options: ConsolidationOptions = {}): Promise<ConsolidationReport[]> {
  const reports: ConsolidationReport[] = [];
  for (const job of listRunningJobs(store.dbRO(), CONSOLIDATE_JOB, options.scope === undefined ? undefined : parseScope(options.scope))) {
    reports.push(await consolidateTaxonomyBranch(store, String(job.params.from), String(job.params.to), { ...options, scope: job.scope }));
  }
  return reports;
}
