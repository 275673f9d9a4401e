/**
 * Timestamps at the boundary: whole epoch milliseconds a Date can hold, and ISO-8601 text read
 * strictly (a day that does not exist is refused, not rolled into the next month). Pure.
 */

/** The range of a JavaScript Date (100,000,000 days either side of 1970): every stored time formats. */
export const MAX_EPOCH_MS = 8.64e15;

/** Whole milliseconds (fractional epochs like Python's time.time() * 1000 are rounded), or undefined out of range. */
export function toEpochMs(value: number): number | undefined {
  if (!Number.isFinite(value)) return undefined;
  const ms = Math.round(value);
  return Math.abs(ms) <= MAX_EPOCH_MS ? ms : undefined;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const daysInMonth = (year: number, month: number) => (month === 2 ? (isLeap(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31);

/** Epoch ms of a UTC calendar time; years 0-99 are those years (Date.UTC would read them as 19xx). */
export function utcEpochMs(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

/** A real calendar day and time of day (month 1-12). */
export const isValidCalendarTime = (year: number, month: number, day: number, hour = 0, minute = 0, second = 0) =>
  Number.isInteger(year) && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month) && hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 && second >= 0 && second <= 59;

/**
 * Epoch ms of an ISO-8601 date or date-time (`2024-01-02`, `2024-01-02T10:00`, `...:30.5Z`,
 * `...+02:00`); no zone means UTC, so a file gives the same times on every machine. Undefined for
 * anything else, or a date or time that does not exist (2023-02-30, 24:00, 10:61).
 */
export function parseIsoTimestamp(text: string): number | undefined {
  const m = ISO.exec(text.trim());
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4] ?? "0", m[5] ?? "0", m[6] ?? "0"].map(Number) as [number, number, number, number, number, number];
  if (!isValidCalendarTime(year, month, day, hour, minute, second)) return undefined;
  const zone = m[8] ? (m[8].toUpperCase() === "Z" ? 0 : zoneMinutes(m[8])) : 0;
  if (zone === undefined) return undefined;
  const fraction = m[7] ? Math.round(Number(m[7]) * 1000) : 0;
  return toEpochMs(utcEpochMs(year, month, day, hour, minute, second) + fraction - zone * 60_000);
}

/** "+02:00" / "-0530" -> minutes east of UTC; undefined past ±14:00 or with minutes over 59. */
function zoneMinutes(zone: string): number | undefined {
  const digits = zone.slice(1).replace(":", "");
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2));
  if (hours > 14 || minutes > 59) return undefined;
  return (zone[0] === "-" ? -1 : 1) * (hours * 60 + minutes);
}
