/**
 * The export file (JSONL): a header line, then one record a line: nodes (contradictions, fallacies
 * and categories among them, taxonomy paths on them), sources, links, link events, sessions,
 * episodes, mentions, summaries, extraction checkpoints, procedures, procedure versions, and with
 * --with-vectors the stored vectors. Every table is written in its key's order, so the same memory
 * always gives the same bytes.
 */
import * as v from "valibot";
import type { TableDump } from "../engine/table-dump.ts";
import { EPISODIC_DUMPS } from "../episodic/dump.ts";
import { PROCEDURAL_DUMPS } from "../procedural/dump.ts";
import { LINK_DUMPS, NODE_DUMPS } from "../semantic/dump.ts";
import { TierModelsSchema } from "./vector-dump.ts";

export const EXPORT_FORMAT = "gllam-export";
export const EXPORT_VERSION = 1;

/** The tables, in file order: what a record points at comes before it (links' forward references aside). */
export const DUMPS: readonly TableDump[] = [...NODE_DUMPS, ...LINK_DUMPS, ...EPISODIC_DUMPS, ...PROCEDURAL_DUMPS];

export const HeaderSchema = v.strictObject({
  record: v.literal("header"),
  format: v.literal(EXPORT_FORMAT, `must be "${EXPORT_FORMAT}" (this is not a gllam export)`),
  version: v.literal(EXPORT_VERSION, `must be ${EXPORT_VERSION} (a file of another export format version)`),
  /** The schema version of the database it was exported from. */
  schema: v.pipe(v.number(), v.integer(), v.minValue(1)),
  generator: v.string(),
  /** The scope exported, or null for every scope. */
  scope: v.nullable(v.string()),
  /** The models of the vectors the file carries, or null when it carries none (they are recomputed at import). */
  models: v.nullable(TierModelsSchema),
  /** The highest episode id ever given (forgotten ones included), so the importing file never gives one again. */
  episode_sequence: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
});
export type ExportHeader = v.InferOutput<typeof HeaderSchema>;
