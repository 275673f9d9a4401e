/** What every ingest format produces, and how it reports bad records. */
import { GllamError } from "../../engine/errors.ts";
import type { EpisodeInput, SessionInput } from "../../memory/types.ts";

/** One conversation (LoCoMo sample, LongMemEval question haystack, BEAM chat, file): ingested as one transaction. */
export type IngestUnit = { key: string; sessions: SessionInput[]; episodes: EpisodeInput[] };
export type BadRecord = { where: string; problem: string };
export type ParsedSource = { format: FormatName; units: IngestUnit[]; bad: BadRecord[] };

export const FORMAT_NAMES = ["jsonl", "locomo", "longmemeval", "beam", "markdown", "text"] as const;
export type FormatName = (typeof FORMAT_NAMES)[number];

export type ParseOptions = {
  /** The file name used in errors and default session ids. */
  file: string;
  scope?: string;
  /** Put everything in this session (markdown, text, jsonl lines without a session). */
  session?: string;
  /** List bad records and keep the rest, instead of failing on the first. */
  skipBad?: boolean;
};

/** Collects bad records with --skip-bad, else fails on the first one. */
export function createBadRecordSink(options: ParseOptions): { bad: BadRecord[]; report(where: string, problem: string): void } {
  const bad: BadRecord[] = [];
  return {
    bad,
    report(where, problem) {
      if (!options.skipBad) throw new GllamError("E_BAD_INPUT", `${where}: ${problem}`);
      bad.push({ where, problem });
    },
  };
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
