/** What every ingest format produces: a stream of records, each named by where it is in its file. */
import { GllamError } from "../../engine/errors.ts";
import type { EpisodeInput, SessionInput } from "../../memory/types.ts";

/**
 * One thing read from a file, in file order: a session (title, dates), an episode, or a bad record
 * (what is wrong with it). `where` names it: `file:line` for line formats, the record's path in
 * JSON ones. `unit` groups the records of one conversation (a LoCoMo sample, a LongMemEval question).
 */
export type SourceRecord =
  | { where: string; unit?: string; session: SessionInput }
  | { where: string; unit?: string; episode: EpisodeInput }
  | { where: string; problem: string };

export type BadRecord = { where: string; problem: string };

export const FORMAT_NAMES = ["jsonl", "locomo", "longmemeval", "beam", "markdown", "text"] as const;
export type FormatName = (typeof FORMAT_NAMES)[number];

export type ParseOptions = {
  /** The file name used in errors (and, by its base name, in default session ids). */
  file: string;
  scope?: string;
  /** Put everything in this session (markdown, text, jsonl lines without a session, BEAM). */
  session?: string;
};

/** The episodes of one conversation, for callers that handle conversations one by one (the benchmarks). */
export type IngestUnit = { key: string; sessions: SessionInput[]; episodes: EpisodeInput[] };

/** Groups records by their unit; a bad record fails (these callers take clean data only). */
export function collectUnits(records: Iterable<SourceRecord>): IngestUnit[] {
  const units = new Map<string, IngestUnit>();
  for (const record of records) {
    if ("problem" in record) throw new GllamError("E_BAD_INPUT", `${record.where}: ${record.problem}`);
    const key = record.unit ?? "";
    const unit = units.get(key) ?? { key, sessions: [], episodes: [] };
    units.set(key, unit);
    if ("session" in record) unit.sessions.push(record.session);
    else unit.episodes.push(record.episode);
  }
  return [...units.values()].filter((unit) => unit.episodes.length > 0);
}

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A non-empty string field, trimmed; undefined when missing or blank. */
export function textField(record: Record<string, unknown>, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = record[name];
    if (typeof value === "string" && value.trim()) return value.trim();
    if (typeof value === "number") return String(value);
  }
  return undefined;
}

/** A source value for a message: text quoted and cut at 100 characters, containers by kind (they may nest arbitrarily deep). */
export function describeValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}...` : value);
  if (Array.isArray(value)) return "a list";
  if (isRecord(value)) return "an object";
  return String(value);
}
