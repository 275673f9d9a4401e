/**
 * Dates as conversation sources write them, to epoch ms. Pure. Dates without a zone are read as
 * UTC so the same file gives the same times on every machine; a day that does not exist
 * (30 February) is unreadable, never rolled over.
 */
import { isValidCalendarTime, parseIsoTimestamp, toEpochMs, utcEpochMs } from "../../memory/time.ts";

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/** "May", "may", "Sept" -> 0-based month, or -1. */
export function monthIndex(name: string): number {
  const lower = name.toLowerCase().replace(/\.$/, "");
  if (lower.length < 3) return -1;
  return MONTHS.findIndex((month) => month.startsWith(lower.slice(0, 3)) && month.startsWith(lower === "sept" ? "sep" : lower));
}

/** month is 0-based (as monthIndex gives it). */
const utc = (year: number, month: number, day: number, hour = 0, minute = 0): number | undefined =>
  isValidCalendarTime(year, month + 1, day, hour, minute) ? utcEpochMs(year, month + 1, day, hour, minute) : undefined;

const to24h = (hour: number, meridiem: string | undefined) => {
  if (!meridiem) return hour;
  if (hour < 1 || hour > 12) return Number.NaN;
  const pm = meridiem.toLowerCase().startsWith("p");
  return (hour % 12) + (pm ? 12 : 0);
};

const PATTERNS: { re: RegExp; read(m: RegExpMatchArray): number | undefined }[] = [
  // LoCoMo: "1:56 pm on 8 May, 2023"
  {
    re: /^(\d{1,2}):(\d{2})\s*([ap]\.?m\.?)?\s+on\s+(\d{1,2})\s+([a-z]+)\.?,?\s+(\d{4})$/i,
    read: (m) => utc(+m[6]!, monthIndex(m[5]!), +m[4]!, to24h(+m[1]!, m[3]), +m[2]!),
  },
  // LongMemEval: "2023/05/20 (Sat) 02:21"
  {
    re: /^(\d{4})\/(\d{1,2})\/(\d{1,2})(?:\s*\([a-z]+\))?(?:\s+(\d{1,2}):(\d{2}))?$/i,
    read: (m) => utc(+m[1]!, +m[2]! - 1, +m[3]!, +(m[4] ?? 0), +(m[5] ?? 0)),
  },
  // BEAM: "March-15-2024"; also "March 15, 2024"
  { re: /^([a-z]+)[-\s](\d{1,2})(?:st|nd|rd|th)?,?[-\s](\d{4})$/i, read: (m) => utc(+m[3]!, monthIndex(m[1]!), +m[2]!) },
  // "8 May 2023", "8 May, 2023"
  { re: /^(\d{1,2})(?:st|nd|rd|th)?\s+([a-z]+)\.?,?\s+(\d{4})$/i, read: (m) => utc(+m[3]!, monthIndex(m[2]!), +m[1]!) },
  // ISO-8601 date or date-time (a zone, if given, is honoured)
  { re: /^\d{4}-\d{2}-\d{2}(?:[T ].*)?$/, read: (m) => parseIsoTimestamp(m[0]) },
];

/**
 * Epoch ms from a source's date text or number: seconds (below 1e11, fractions kept to the ms, as
 * Python's time.time() writes them) or milliseconds since the epoch; undefined when unreadable.
 */
export function parseSourceDate(value: unknown): number | undefined {
  if (typeof value === "number") return toEpochMs(Math.abs(value) < 1e11 ? value * 1000 : value);
  if (typeof value !== "string" || value.length > 200) return undefined;
  const text = value.trim().replace(/\s+/g, " ");
  if (/^\d{9,13}(?:\.\d+)?$/.test(text)) return parseSourceDate(Number(text));
  for (const pattern of PATTERNS) {
    const match = text.match(pattern.re);
    if (match) return pattern.read(match);
  }
  return undefined;
}
