/**
 * What faces may use besides the facade and its operations: result types and the pure helpers that
 * present them. Faces import from here (never from the layers), so the layers stay free to move.
 */
export { describeNearMisses, doubtfulNames, type NameLookup, type RecordedFact } from "../semantic/record-fact.ts";
export { formatDay, formatLink, formatRecallMarkdown } from "../retrieval/format.ts";
export type { ForgetReport, ForgetTarget } from "../semantic/forget.ts";
export type { LinkVersion } from "../semantic/history.ts";
export type { RecallResult } from "../retrieval/recall.ts";
export { BufferedWriter, writeOutputFile, writeOutputStream } from "../engine/files.ts";
export type { ExportReport } from "../maintenance/export.ts";
export type { ImportReport } from "../maintenance/import.ts";
export type { StoreStats } from "../engine/stats.ts";
export type { SleepCycleReport } from "../maintenance/sleep-cycle.ts";
export type { IngestReport } from "../episodic/ingest.ts";
export type { PrewarmReport } from "../retrieval/prewarm.ts";
export { FORMAT_NAMES } from "../episodic/formats/source.ts";
export { describeError, ERROR_CODES, GllamError, isGllamError, type GllamErrorCode } from "../engine/errors.ts";
export { parseJsonLines, readTextFile } from "../extraction/import-facts.ts";
export type { ExtractReport } from "../extraction/extract.ts";
