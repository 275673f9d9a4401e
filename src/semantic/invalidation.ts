/**
 * Invalidation in world time: a link stops holding at `at` (kept, still believed for its interval).
 * Cascading invalidation follows dependency relationships from a changed node to everything that
 * depends on it, with the seed's active-stack cycle guard, in one transaction.
 */
import type { AgenticMemoryConfig } from "../config/prompts.ts";
import type { Store } from "../engine/store.ts";
import { GllamError } from "../engine/errors.ts";
import { parseScope } from "../memory/parse.ts";
import { endLinkValidity, LINK_COLUMNS, readLink, toLink, type LinkRow } from "./links.ts";
import { requireNode } from "./nodes.ts";

export type InvalidationResult = { linkId: number; changed: boolean; validUntil: number | null; reason: string };

/** Seed: InvalidateObsoleteEdge. Ends a link of the scope at `at` unless it already ended by then. */
export function invalidateObsoleteEdge(store: Store, linkId: number, at: number, options: { scope?: string; now?: number } = {}): InvalidationResult {
  if (!Number.isFinite(at)) throw new GllamError("E_BAD_INPUT", `invalidation time must be a date, got ${at}`);
  const scope = parseScope(options.scope);
  const now = options.now ?? Date.now();
  return store.transaction(() => {
    const link = readLink(store, linkId, true, scope);
    if (!link) throw new GllamError("E_NOT_FOUND", `no link ${linkId}`);
    if (at < link.validFrom) throw new GllamError("E_BAD_INPUT", `link ${linkId} starts at ${new Date(link.validFrom).toISOString()}; cannot end it before that (${new Date(at).toISOString()})`);
    if (link.validUntil !== null && link.validUntil <= at) return { linkId, changed: false, validUntil: link.validUntil, reason: "already ended by then" };
    endLinkValidity(store, link, at, { now, endReason: "invalidated", detail: "obsolete" });
    return { linkId, changed: true, validUntil: at, reason: "ended" };
  });
}

export type CascadeReport = {
  rootId: string;
  at: number;
  invalidatedLinkIds: number[];
  visitedNodeIds: string[];
  /** One diagnostic per cycle cut by the active-stack guard: the dependency path that closed it. */
  cyclesCut: string[][];
  /** Nodes not followed because the depth limit was reached. */
  depthLimited: string[];
};

/**
 * Seed: InvalidateDependentCrossCuttingLinks. Every link "X <dependency> node" active at `at` is
 * ended at `at`, then X's dependents in turn, up to maxDepth hops. A dependent already on the
 * current recursion branch (the active stack) closes a cycle: that branch stops, with a diagnostic.
 */
export function invalidateDependentCrossCuttingLinks(
  store: Store,
  config: AgenticMemoryConfig,
  nodeId: string,
  at: number,
  options: { maxDepth?: number; now?: number; scope?: string } = {},
): CascadeReport {
  const scope = parseScope(options.scope);
  const maxDepth = options.maxDepth ?? 10;
  const now = options.now ?? Date.now();
  if (!Number.isInteger(maxDepth) || maxDepth < 1 || maxDepth > 100) throw new GllamError("E_BAD_INPUT", `maxDepth must be an integer in 1..100, got ${maxDepth}`);
  if (!Number.isFinite(at)) throw new GllamError("E_BAD_INPUT", `invalidation time must be a date, got ${at}`);
  return store.transaction(() => {
    requireNode(store, nodeId, scope, true);
    const dependents = store
      .db()
      .query<LinkRow, [string, string, number, number, string]>(
        `SELECT ${LINK_COLUMNS} FROM semantic_links
         WHERE target_id = ? AND relationship IN (SELECT value FROM json_each(?)) AND expired_at IS NULL
           AND valid_from <= ? AND (valid_until IS NULL OR valid_until > ?) AND +scope = ? ORDER BY id`,
      );
    const relationships = JSON.stringify(config.dependency_relationships);
    const report: CascadeReport = { rootId: nodeId, at, invalidatedLinkIds: [], visitedNodeIds: [], cyclesCut: [], depthLimited: [] };
    const activeStack = new Set<string>();
    const done = new Set<string>();
    const visit = (node: string, path: string[]) => {
      activeStack.add(node);
      report.visitedNodeIds.push(node);
      for (const link of dependents.all(node, relationships, at, at, scope).map(toLink)) {
        endLinkValidity(store, link, at, { now, endReason: "invalidated", detail: `cascade from ${nodeId}` });
        report.invalidatedLinkIds.push(link.id);
        const dependent = link.sourceId;
        if (activeStack.has(dependent)) report.cyclesCut.push([...path, dependent]);
        else if (path.length >= maxDepth) report.depthLimited.push(dependent);
        else if (!done.has(dependent)) visit(dependent, [...path, dependent]);
      }
      activeStack.delete(node);
      done.add(node);
    };
    visit(nodeId, [nodeId]);
    return report;
  });
}
