/** Operations about the store and the planner: stats, and solving a PDDL task given as text. */
import * as v from "valibot";
import type { StoreStats } from "../../engine/stats.ts";
import { formatPlan } from "../../planning/plan-text.ts";
import type { PlanResult } from "../../planning/planner.ts";
import { PLANNER_CHOICES } from "../../planning/solve.ts";
import { defineOperation, TextSchema } from "../operation.ts";
import { planPddlTexts } from "../tools.ts";

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

export function formatStats(stats: StoreStats): string {
  const width = Math.max(...Object.keys(stats.tables).map((name) => name.length));
  return [
    `database   ${stats.path}`,
    `size       ${formatBytes(stats.fileBytes)} (WAL ${formatBytes(stats.walBytes)})`,
    `schema     version ${stats.schemaVersion} · SQLite ${stats.sqliteVersion} · sqlite-vec ${stats.sqliteVecVersion}`,
    `embeddings ${stats.embeddingModel ?? "none stored yet"}${stats.embeddingDims ? ` (${stats.embeddingDims} dims)` : ""}`,
    `static     ${stats.staticModel ?? "none stored yet"}`,
    "",
    ...Object.entries(stats.tables).map(([name, count]) => `${name.padEnd(width)}  ${String(count).padStart(8)}`),
  ].join("\n");
}

export const stats = defineOperation({
  name: "stats",
  summary: "Rows per table, file and WAL size, schema, SQLite and sqlite-vec versions, and the embedding models of the memory file",
  input: v.optional(v.object({}), {}),
  readOnly: true,
  run: (gllam) => gllam.stats(),
  toText: formatStats,
});

/** Planner flags as every face takes them: the planner, seconds, and native improvement. */
export const PlanSettingsSchema = v.object({
  planner: v.optional(v.picklist(PLANNER_CHOICES, `must be one of ${PLANNER_CHOICES.join(", ")}`), "native"),
  timeout: v.optional(v.pipe(v.number("must be a number of seconds"), v.check((s) => Number.isFinite(s) && s > 0 && s <= 3600, "must be seconds in (0, 3600]")), 30),
  improve: v.optional(v.picklist(["none", "eliminate", "anytime"], "must be none, eliminate or anytime"), "eliminate"),
});

export function formatPlanResult(result: PlanResult): string {
  if (result.status === "solved") return formatPlan(result.plan, result.cost);
  return `no plan (${result.status}, ${result.planner}): ${result.reason}`;
}

const PlanInputSchema = v.object({ domain: v.pipe(TextSchema, v.nonEmpty("must not be empty")), problem: v.pipe(TextSchema, v.nonEmpty("must not be empty")), ...PlanSettingsSchema.entries });

/** Planning reads no memory: the same with or without a memory file open. */
const solvePddlTexts = (input: v.InferOutput<typeof PlanInputSchema>) =>
  planPddlTexts({ domain: input.domain, problem: input.problem }, { planner: input.planner, timeoutMs: input.timeout * 1000, improve: input.improve });

export const plan = defineOperation({
  name: "plan",
  summary: "Solve a PDDL task (STRIPS with typing, negative preconditions, equality, action costs) given as domain and problem text; the plan is validated by simulation",
  input: PlanInputSchema,
  readOnly: true,
  run: (_gllam, input) => solvePddlTexts(input),
  withoutMemory: solvePddlTexts,
  toText: formatPlanResult,
});
