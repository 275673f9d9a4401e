import { expect, test } from "bun:test";
import { findEventRelativeExpressions, resolveDateExpressions, windowAroundEvent } from "../../src/router/dates.ts";

// The conversation's latest date: Wednesday 2023-08-16.
const ANCHOR = Date.parse("2023-08-16T15:00:00Z");
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const windows = (query: string) => resolveDateExpressions(query, ANCHOR).map((w) => [w.expression, day(w.start), day(w.end - 1)]);

test.each<[string, string[][]]>([
  ["what happened on 2023-05-08?", [["2023-05-08", "2023-05-08", "2023-05-08"]]],
  ["anything in 2023-05", [["2023-05", "2023-05-01", "2023-05-31"]]],
  ["on 8 May 2023", [["8 may 2023", "2023-05-08", "2023-05-08"]]],
  ["on May 8th, 2023", [["may 8th, 2023", "2023-05-08", "2023-05-08"]]],
  ["in March 2022", [["march 2022", "2022-03-01", "2022-03-31"]]],
  ["what did Ann do last May?", [["last may", "2023-05-01", "2023-05-31"]]],
  ["what did Ann do last September?", [["last september", "2022-09-01", "2022-09-30"]]],
  ["plans for next September", [["next september", "2023-09-01", "2023-09-30"]]],
  ["in December", [["in december", "2022-12-01", "2022-12-31"]]],
  ["in 2021", [["in 2021", "2021-01-01", "2021-12-31"]]],
  ["yesterday", [["yesterday", "2023-08-15", "2023-08-15"]]],
  ["what did we do today", [["today", "2023-08-16", "2023-08-16"]]],
  ["two weeks ago", [["two weeks ago", "2023-07-24", "2023-08-13"]]],
  ["3 days ago", [["3 days ago", "2023-08-12", "2023-08-14"]]],
  ["a month ago", [["a month ago", "2023-07-01", "2023-07-31"]]],
  ["last week", [["last week", "2023-08-07", "2023-08-13"]]],
  ["last month", [["last month", "2023-07-01", "2023-07-31"]]],
  ["last year", [["last year", "2022-01-01", "2022-12-31"]]],
  ["this year", [["this year", "2023-01-01", "2023-12-31"]]],
  ["what is caddy", []],
  ["May I ask about caddy?", []],
])("%s", (query, expected) => {
  expect(windows(query)).toEqual(expected);
});

test("several expressions give several windows", () => {
  expect(windows("between last May and 2023-08-01").map(([e]) => e)).toEqual(["2023-08-01", "last may"]);
});

test("event-relative expressions are found, then dated by the event", () => {
  const [found] = findEventRelativeExpressions("What did Ann buy two weeks before the wedding in Lisbon?");
  expect(found).toEqual({ expression: "two weeks before the wedding in Lisbon", count: 2, unit: "week", direction: "before", event: "wedding in Lisbon" });
  const window = windowAroundEvent(found!, Date.parse("2023-08-10T00:00:00Z"));
  expect([day(window.start), day(window.end - 1)]).toEqual(["2023-07-17", "2023-08-06"]);
  expect(findEventRelativeExpressions("3 days after my surgery").map((e) => [e.count, e.unit, e.direction, e.event])).toEqual([[3, "day", "after", "surgery"]]);
  expect(findEventRelativeExpressions("what happened before the trip")).toEqual([]);
});
