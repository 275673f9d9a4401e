/**
 * A date as an extraction answer gives it, resolved against the session's date: ISO and the
 * formats sources use (parseSourceDate), else the relative phrases people say ("yesterday",
 * "last week", "3 days ago", "next month"), so "last week" is a date. Pure.
 */
import { parseSourceDate } from "../episodic/formats/dates.ts";

const DAY = 86_400_000;
const UNITS: Record<string, "day" | "week" | "month" | "year"> = { day: "day", days: "day", week: "week", weeks: "week", month: "month", months: "month", year: "year", years: "year" };
const NUMBERS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, few: 3, couple: 2 };

/** `at` moved by n units (months and years by calendar, clamped to the month's last day). */
function shift(at: number, unit: "day" | "week" | "month" | "year", n: number): number {
  if (unit === "day") return at + n * DAY;
  if (unit === "week") return at + n * 7 * DAY;
  const date = new Date(at);
  const months = unit === "month" ? n : 12 * n;
  const target = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  return Date.UTC(target.getUTCFullYear(), target.getUTCMonth(), Math.min(date.getUTCDate(), lastDay));
}

/** The session's day at midnight UTC (relative dates name days, not instants). */
const dayOf = (at: number): number => Math.floor(at / DAY) * DAY;

/** Epoch ms of a date text relative to `anchor` (the session date); undefined when it names no date. */
export function resolveDateText(text: string | null | undefined, anchor: number | undefined): number | undefined {
  if (!text) return undefined;
  const absolute = parseSourceDate(text);
  if (absolute !== undefined) return absolute;
  if (anchor === undefined) return undefined;
  const phrase = text.trim().toLowerCase().replace(/\s+/g, " ");
  const day = dayOf(anchor);
  if (/^(today|now|tonight|this (morning|afternoon|evening))$/.test(phrase)) return day;
  if (phrase === "yesterday") return day - DAY;
  if (phrase === "tomorrow") return day + DAY;
  const lastNext = /^(last|next|this|past) (day|week|month|year)$/.exec(phrase);
  if (lastNext) return shift(day, UNITS[lastNext[2]!]!, lastNext[1] === "next" ? 1 : lastNext[1] === "this" ? 0 : -1);
  const ago = /^(?:(\d+)|(?:a )?(a|an|one|two|three|four|five|six|seven|eight|nine|ten|few|couple))(?: of)? (days?|weeks?|months?|years?) (ago|before|earlier|later|from now)$/.exec(phrase);
  if (ago) {
    const n = ago[1] ? Number(ago[1]) : NUMBERS[ago[2]!]!;
    return shift(day, UNITS[ago[3]!]!, ago[4] === "later" || ago[4] === "from now" ? n : -n);
  }
  const inN = /^in (\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|few|couple) (days?|weeks?|months?|years?)$/.exec(phrase);
  if (inN) return shift(day, UNITS[inN[2]!]!, /^\d+$/.test(inN[1]!) ? Number(inN[1]) : NUMBERS[inN[1]!]!);
  return undefined;
}

/** YYYY-MM-DD and the weekday, as the prompt shows the session date. */
export const formatSessionDate = (at: number): string => `${new Date(at).toISOString().slice(0, 10)} (${new Date(at).toLocaleDateString("en-US", { weekday: "long", timeZone: "UTC" })})`;
