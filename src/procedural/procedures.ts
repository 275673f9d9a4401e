import * as v from "valibot";
import { GllamError } from "../engine/errors.ts";
import { escapeLike } from "../engine/sql.ts";
import type { Store } from "../engine/store.ts";
import { parseInput, parseJsonColumn, parseScope } from "../memory/parse.ts";
import {
  PddlActionSchema,
  ProcedureInputSchema,
  TaxonomyPathSchema,
  type PddlAction,
  type ProceduralKnowledge,
  type ProceduralVersionRow,
  type ProcedureInput,
} from "../memory/types.ts";
import { parseRecipeAction } from "../planning/recipe-domain.ts";

type ProcedureRow = Omit<ProceduralKnowledge, "isGolden" | "pddlAction"> & { isGolden: number; pddlAction: string | null };

const COLUMNS = `id, scope, task_type AS taskType, recipe, version, is_golden AS isGolden, helpful_count AS helpfulCount,
  unhelpful_count AS unhelpfulCount, times_applied AS timesApplied, taxonomy_path AS taxonomyPath, pddl_action AS pddlAction,
  created_at AS createdAt, updated_at AS updatedAt`;

/** Golden recipes first, then net helpfulness (helpful minus unhelpful marks), then usage. */
const RANKING = "is_golden DESC, helpful_count - unhelpful_count DESC, times_applied DESC, updated_at DESC, id";

/** A stored action that no longer parses reads as none rather than failing the read. */
function readAction(text: string | null): PddlAction | null {
  const parsed = v.safeParse(PddlActionSchema, parseJsonColumn<unknown>(text, null));
  return parsed.success ? parsed.output : null;
}

const toProcedure = (row: ProcedureRow): ProceduralKnowledge => ({ ...row, isGolden: row.isGolden === 1, pddlAction: readAction(row.pddlAction) });

function readProcedure(store: Store, scope: string, taskType: string, fromWriter = false): ProceduralKnowledge | undefined {
  const row = (fromWriter ? store.db() : store.dbRO())
    .query<ProcedureRow, [string, string]>(`SELECT ${COLUMNS} FROM procedural_knowledge WHERE scope = ? AND task_type = ?`)
    .get(scope, taskType);
  return row ? toProcedure(row) : undefined;
}

export type UpsertProcedureResult = { procedure: ProceduralKnowledge; created: boolean; versioned: boolean };

/**
 * Inserts a recipe, or updates it: a changed recipe or action bumps the version and keeps the
 * previous one in procedural_versions; a changed taxonomy path alone does not. Fields not given
 * keep their value. A declared action must parse (literals, parameters) before anything is written.
 */
export function upsertProceduralKnowledge(store: Store, input: ProcedureInput, now = Date.now()): UpsertProcedureResult {
  const parsed = parseInput(ProcedureInputSchema, input, "procedure");
  if (parsed.pddlAction) parseRecipeAction(parsed.pddlAction, `procedure ${parsed.taskType}: action`);
  return store.transaction(() => {
    const db = store.db();
    const existing = readProcedure(store, parsed.scope, parsed.taskType, true);
    const action = parsed.pddlAction ? JSON.stringify(parsed.pddlAction) : null;
    if (!existing) {
      db.query(
        `INSERT INTO procedural_knowledge (scope, task_type, recipe, taxonomy_path, pddl_action, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ).run(parsed.scope, parsed.taskType, parsed.recipe, parsed.taxonomyPath, action, now, now);
      return { procedure: readProcedure(store, parsed.scope, parsed.taskType, true)!, created: true, versioned: false };
    }
    const given = new Set(Object.keys(input));
    const oldAction = existing.pddlAction ? JSON.stringify(existing.pddlAction) : null;
    const nextAction = given.has("pddlAction") ? action : oldAction;
    const taxonomyPath = given.has("taxonomyPath") ? parsed.taxonomyPath : existing.taxonomyPath;
    const versioned = parsed.recipe !== existing.recipe || nextAction !== oldAction;
    if (versioned) {
      db.query("INSERT INTO procedural_versions (procedure_id, version, recipe, pddl_action, recorded_at) VALUES (?, ?, ?, ?, ?)").run(
        existing.id,
        existing.version,
        existing.recipe,
        oldAction,
        existing.updatedAt,
      );
    }
    if (versioned || taxonomyPath !== existing.taxonomyPath) {
      db.query("UPDATE procedural_knowledge SET recipe = ?, pddl_action = ?, taxonomy_path = ?, version = version + ?, updated_at = ? WHERE id = ?").run(
        parsed.recipe,
        nextAction,
        taxonomyPath,
        versioned ? 1 : 0,
        now,
        existing.id,
      );
    }
    return { procedure: readProcedure(store, parsed.scope, parsed.taskType, true)!, created: false, versioned };
  });
}

/**
 * Feedback on a recipe: a helpful mark counts and makes it the golden standard; an unhelpful one
 * counts and takes the golden flag away (the latest feedback decides, the counts keep the history).
 */
export function markProcedureHelpful(store: Store, taskType: string, helpful: boolean, scopeInput?: string, now = Date.now()): ProceduralKnowledge {
  const scope = parseScope(scopeInput);
  const row = store
    .db()
    .query<ProcedureRow, [number, number, number, number, string, string]>(
      `UPDATE procedural_knowledge SET helpful_count = helpful_count + ?, unhelpful_count = unhelpful_count + ?, is_golden = ?, updated_at = ?
       WHERE scope = ? AND task_type = ? RETURNING ${COLUMNS}`,
    )
    .get(helpful ? 1 : 0, helpful ? 0 : 1, helpful ? 1 : 0, now, scope, taskType);
  if (!row) throw new GllamError("E_NOT_FOUND", `no procedure for task type "${taskType}" in scope "${scope}"`);
  return toProcedure(row);
}

/** The recipe for a task type, counting the retrieval as one more application. */
export function retrieveProcedure(store: Store, taskType: string, scopeInput?: string): ProceduralKnowledge | undefined {
  const scope = parseScope(scopeInput);
  const row = store
    .db()
    .query<ProcedureRow, [string, string]>(`UPDATE procedural_knowledge SET times_applied = times_applied + 1 WHERE scope = ? AND task_type = ? RETURNING ${COLUMNS}`)
    .get(scope, taskType);
  return row ? toProcedure(row) : undefined;
}

export function getTopProcedures(store: Store, limit = 10, scopeInput?: string): ProceduralKnowledge[] {
  const scope = parseScope(scopeInput);
  if (!Number.isInteger(limit) || limit < 1) throw new GllamError("E_BAD_INPUT", `limit must be a positive integer, got ${limit}`);
  return store.dbRO().query<ProcedureRow, [string, number]>(`SELECT ${COLUMNS} FROM procedural_knowledge WHERE scope = ? ORDER BY ${RANKING} LIMIT ?`).all(scope, limit).map(toProcedure);
}

/** Recipes bound to a taxonomy sub-tree: the path itself and everything below it, best first. */
export function getProceduresByTaxonomyPrefix(store: Store, prefix: string, scopeInput?: string): ProceduralKnowledge[] {
  const scope = parseScope(scopeInput);
  const path = parseInput(TaxonomyPathSchema, prefix, "taxonomy prefix").replace(/(.)\/+$/, "$1");
  return store
    .dbRO()
    .query<ProcedureRow, [string, string, string]>(
      `SELECT ${COLUMNS} FROM procedural_knowledge WHERE scope = ? AND (taxonomy_path = ? OR taxonomy_path LIKE ? ESCAPE '\\') ORDER BY ${RANKING}`,
    )
    .all(scope, path, `${escapeLike(path === "/" ? "" : path)}/%`)
    .map(toProcedure);
}

/** Every version of a recipe, oldest first, the current one last. */
export function getProcedureVersions(store: Store, taskType: string, scopeInput?: string): ProceduralVersionRow[] {
  const scope = parseScope(scopeInput);
  const current = readProcedure(store, scope, taskType);
  if (!current) return [];
  const older = store
    .dbRO()
    .query<Omit<ProceduralVersionRow, "pddlAction"> & { pddlAction: string | null }, [number]>(
      `SELECT procedure_id AS procedureId, version, recipe, pddl_action AS pddlAction, recorded_at AS recordedAt
       FROM procedural_versions WHERE procedure_id = ? ORDER BY version`,
    )
    .all(current.id)
    .map((row) => ({ ...row, pddlAction: readAction(row.pddlAction) }));
  return [...older, { procedureId: current.id, version: current.version, recipe: current.recipe, pddlAction: current.pddlAction, recordedAt: current.updatedAt }];
}

/** Recipes that declare a PDDL action (optionally under a taxonomy prefix): the planner's building blocks. */
export function listActionProcedures(store: Store, scope?: string, taxonomyPrefix = "/"): ProceduralKnowledge[] {
  return getProceduresByTaxonomyPrefix(store, taxonomyPrefix, scope).filter((p) => p.pddlAction !== null);
}
