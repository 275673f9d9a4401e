/**
 * Date expressions in a query resolved to time windows, pure. Relative expressions ("last May",
 * "two weeks ago", "yesterday") are read against an anchor: the conversation's latest date, so a
 * question about a conversation from 2023 means 2023's May, not this year's.
 */
import { utcEpochMs } from "../memory/time.ts";

export type DateWindow = { start: number; end: number; expression: string };

const DAY = 86_400_000;
const MONTH_NAMES = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
const MONTH = "(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)";
const NUMBER_WORDS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12, few: 3, couple: 2, several: 3 };
const UNIT = "(day|week|month|year)s?";

const monthIndex = (name: string) => MONTH_NAMES.findIndex((m) => m.startsWith(name.toLowerCase().slice(0, 3)));
const monthWindow = (year: number, month: number, expression: string): DateWindow => ({ start: utcEpochMs(year, month + 1, 1), end: utcEpochMs(month === 11 ? year + 1 : year, month === 11 ? 1 : month + 2, 1), expression });
const dayWindow = (ms: number, expression: string, days = 1): DateWindow => {
  const start = Math.floor(ms / DAY) * DAY;
  return { start, end: start + days * DAY, expression };
};
const yearWindow = (year: number, expression: string): DateWindow => ({ start: utcEpochMs(year, 1, 1), end: utcEpochMs(year + 1, 1, 1), expression });
/** Monday 00:00 UTC of the week holding ms. */
const weekStart = (ms: number) => {
  const day = Math.floor(ms / DAY) * DAY;
  return day - ((new Date(day).getUTCDay() + 6) % 7) * DAY;
};

function unitWindow(unit: string, at: number, expression: string): DateWindow {
  const date = new Date(at);
  if (unit.startsWith("day")) return dayWindow(at - DAY, expression, 3);
  if (unit.startsWith("week")) return { start: weekStart(at) - 7 * DAY, end: weekStart(at) + 14 * DAY, expression };
  if (unit.startsWith("month")) return monthWindow(date.getUTCFullYear(), date.getUTCMonth(), expression);
  return yearWindow(date.getUTCFullYear(), expression);
}

function shift(anchor: number, unit: string, count: number): number {
  const date = new Date(anchor);
  if (unit.startsWith("day")) return anchor + count * DAY;
  if (unit.startsWith("week")) return anchor + count * 7 * DAY;
  if (unit.startsWith("month")) return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + count, Math.min(date.getUTCDate(), 28));
  return Date.UTC(date.getUTCFullYear() + count, date.getUTCMonth(), Math.min(date.getUTCDate(), 28));
}

/**
 * Every date expression of the query as a window [start, end) in UTC. Absolute dates (2023-05-08,
 * "8 May 2023", "May 2023", 2023) need no anchor; relative ones are resolved against `anchor`.
 */
export function resolveDateExpressions(query: string, anchor: number): DateWindow[] {
  const windows: DateWindow[] = [];
  const text = query.toLowerCase();
  const taken: [number, number][] = [];
  const take = (re: RegExp, make: (m: RegExpExecArray) => DateWindow | undefined) => {
    for (const m of text.matchAll(new RegExp(re.source, "g"))) {
      const at = m.index!;
      if (taken.some(([s, e]) => at < e && at + m[0].length > s)) continue;
      const window = make(m as RegExpExecArray);
      if (window && Number.isFinite(window.start)) {
        windows.push(window);
        taken.push([at, at + m[0].length]);
      }
    }
  };
  const anchorDate = new Date(anchor);
  take(/\b(\d{4})-(\d{2})-(\d{2})\b/, (m) => dayWindow(utcEpochMs(+m[1]!, +m[2]!, +m[3]!), m[0]));
  take(/\b(\d{4})-(\d{2})\b/, (m) => monthWindow(+m[1]!, +m[2]! - 1, m[0]));
  take(new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH},?\\s+(\\d{4})\\b`), (m) => dayWindow(utcEpochMs(+m[3]!, monthIndex(m[2]!) + 1, +m[1]!), m[0]));
  take(new RegExp(`\\b${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`), (m) => dayWindow(utcEpochMs(+m[3]!, monthIndex(m[1]!) + 1, +m[2]!), m[0]));
  take(new RegExp(`\\b${MONTH},?\\s+(\\d{4})\\b`), (m) => monthWindow(+m[2]!, monthIndex(m[1]!), m[0]));
  take(new RegExp(`\\b(last|this|next|in|during)\\s+${MONTH}\\b`), (m) => {
    const month = monthIndex(m[2]!);
    const current = anchorDate.getUTCMonth();
    const year = anchorDate.getUTCFullYear();
    if (m[1] === "next") return monthWindow(month > current ? year : year + 1, month, m[0]);
    if (m[1] === "last") return monthWindow(month < current ? year : year - 1, month, m[0]);
    return monthWindow(month <= current ? year : year - 1, month, m[0]);
  });
  take(/\b(?:in|during|of|since)\s+((?:19|20)\d{2})\b/, (m) => yearWindow(+m[1]!, m[0]));
  take(/\b(yesterday|today|tonight|tomorrow)\b/, (m) => dayWindow(anchor + (m[1] === "yesterday" ? -DAY : m[1] === "tomorrow" ? DAY : 0), m[0]));
  take(new RegExp(`\\b(\\d+|${Object.keys(NUMBER_WORDS).join("|")})\\s+(?:few\\s+)?${UNIT}\\s+ago\\b`), (m) => {
    const count = /^\d+$/.test(m[1]!) ? +m[1]! : NUMBER_WORDS[m[1]!]!;
    return unitWindow(m[2]!, shift(anchor, m[2]!, -count), m[0]);
  });
  take(/\b(last|this|next|past)\s+(week|month|year|weekend)\b/, (m) => {
    const unit = m[2] === "weekend" ? "week" : m[2]!;
    const delta = m[1] === "last" ? -1 : m[1] === "next" ? 1 : 0;
    if (m[1] === "past") return { start: shift(anchor, unit, -1), end: anchor + DAY, expression: m[0] };
    const at = shift(anchor, unit, delta);
    if (unit === "week") return { start: weekStart(at), end: weekStart(at) + 7 * DAY, expression: m[0] };
    return unitWindow(unit, at, m[0]);
  });
  return windows;
}

/** "two weeks before the trip": a span before or after an event the query names, to be dated by memory. */
export type EventRelativeExpression = { expression: string; count: number; unit: string; direction: "before" | "after"; event: string };

export function findEventRelativeExpressions(query: string): EventRelativeExpression[] {
  const re = new RegExp(`\\b(\\d+|${Object.keys(NUMBER_WORDS).join("|")})\\s+(?:few\\s+)?${UNIT}\\s+(before|after)\\s+(?:the\\s+|my\\s+|our\\s+|his\\s+|her\\s+|their\\s+)?([^?.,!;]+)`, "gi");
  return [...query.matchAll(re)].map((m) => ({
    expression: m[0].trim(),
    count: /^\d+$/.test(m[1]!) ? Number(m[1]) : NUMBER_WORDS[m[1]!.toLowerCase()]!,
    unit: m[2]!.toLowerCase(),
    direction: m[3]!.toLowerCase() as "before" | "after",
    event: m[4]!.trim(),
  }));
}

/** The window an event-relative expression means once the event is dated: the unit around the shifted date. */
export function windowAroundEvent(expression: EventRelativeExpression, eventAt: number): DateWindow {
  const at = shift(eventAt, expression.unit, expression.direction === "before" ? -expression.count : expression.count);
  return unitWindow(expression.unit, at, expression.expression);
}
