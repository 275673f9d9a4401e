import type { Database } from "bun:sqlite";
import { UNDER_PREFIX_SQL, underPrefixParams } from "../semantic/taxonomy.ts";

/**
 * Recipes bound to a taxonomy branch follow it when the branch is consolidated into another
 * (getProceduresByTaxonomyPrefix on the new path finds them). Recipes are few: one statement.
 */
export function moveProcedureBranch(db: Database, scope: string, from: string, to: string, now: number): number {
  const [pattern, length] = underPrefixParams(from);
  return db
    .query(`UPDATE procedural_knowledge SET taxonomy_path = ?1 || substr(taxonomy_path, ?2 + 1), updated_at = ?3 WHERE scope = ?4 AND ${UNDER_PREFIX_SQL("?5", "?6")}`)
    .run(to, length, now, scope, pattern, length).changes;
}
