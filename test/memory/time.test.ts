import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { MAX_EPOCH_MS, parseIsoTimestamp, toEpochMs } from "../../src/memory/time.ts";
import { TimestampSchema } from "../../src/memory/types.ts";

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

describe("parseIsoTimestamp", () => {
  test.each([
    ["2024-01-02", "2024-01-02T00:00:00.000Z"],
    ["2024-01-02T10:00", "2024-01-02T10:00:00.000Z"],
    ["2024-01-02 10:00:30.25", "2024-01-02T10:00:30.250Z"],
    ["2024-01-02T10:00:00+02:00", "2024-01-02T08:00:00.000Z"],
    ["2024-01-02T10:00:00-0530", "2024-01-02T15:30:00.000Z"],
    ["2024-02-29", "2024-02-29T00:00:00.000Z"],
    ["0050-03-01", "0050-03-01T00:00:00.000Z"],
    // Days and times that do not exist are refused, never rolled over.
    ["2023-02-30", undefined],
    ["2023-02-29", undefined],
    ["2023-04-31", undefined],
    ["2023-13-01", undefined],
    ["2023-00-10", undefined],
    ["2023-01-01T24:00", undefined],
    ["2023-01-01T10:60", undefined],
    ["2023-01-01T10:00+15:00", undefined],
    ["March 7, 2024", undefined],
    ["", undefined],
  ])("%p", (text, expected) => {
    expect(iso(parseIsoTimestamp(text))).toBe(expected);
  });
});

describe("TimestampSchema", () => {
  test.each([
    [1714557600123.456, 1714557600123],
    [new Date(Date.UTC(2024, 0, 1)), Date.UTC(2024, 0, 1)],
    ["2024-01-01T00:00:00Z", Date.UTC(2024, 0, 1)],
    [-MAX_EPOCH_MS, -MAX_EPOCH_MS],
  ])("%p is whole epoch ms", (input, expected) => {
    expect(v.parse(TimestampSchema, input)).toBe(expected);
  });

  test.each([["2023-02-30"], [1e20], [-1e20], [MAX_EPOCH_MS + 1], [Infinity], ["yesterday"]])("%p is refused", (input) => {
    const result = v.safeParse(TimestampSchema, input);
    expect(result.success).toBe(false);
    expect(result.issues?.[0]?.message).toMatch(/must be a valid date/);
  });

  test("NaN and an invalid Date are refused", () => {
    for (const input of [Number.NaN, new Date("x")]) expect(v.safeParse(TimestampSchema, input).success).toBe(false);
  });

  test("toEpochMs rounds and bounds", () => {
    expect([toEpochMs(1.5), toEpochMs(-0.4), toEpochMs(8.64e15), toEpochMs(8.64e15 + 1)]).toEqual([2, -0, 8.64e15, undefined]);
  });
});
