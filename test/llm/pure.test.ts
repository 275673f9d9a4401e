import { expect, test } from "bun:test";
import * as v from "valibot";
import { chunkTurns, turnBudget } from "../../src/llm/chunks.ts";
import { buildExtractionMessages } from "../../src/llm/extraction-prompt.ts";
import { checkOutput, extractJsonText, stripThinking } from "../../src/llm/output.ts";
import { formatSessionDate, resolveDateText } from "../../src/llm/relative-dates.ts";

const at = Date.UTC(2023, 4, 8, 13, 56); // a Monday afternoon
const day = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d);

test("dates resolve against the session's date: absolute ones as written, relative ones to a day", () => {
  expect(resolveDateText("2023-05-01", at)).toBe(day(2023, 5, 1));
  expect(resolveDateText("7 May 2023", at)).toBe(day(2023, 5, 7));
  expect(resolveDateText("yesterday", at)).toBe(day(2023, 5, 7));
  expect(resolveDateText("last week", at)).toBe(day(2023, 5, 1));
  expect(resolveDateText("3 days ago", at)).toBe(day(2023, 5, 5));
  expect(resolveDateText("a few weeks ago", at)).toBe(day(2023, 4, 17));
  expect(resolveDateText("next month", at)).toBe(day(2023, 6, 8));
  expect(resolveDateText("in two years", at)).toBe(day(2025, 5, 8));
  expect(resolveDateText("last month", Date.UTC(2023, 2, 31))).toBe(day(2023, 2, 28));
  expect(resolveDateText("someday", at)).toBeUndefined();
  expect(resolveDateText("yesterday", undefined)).toBeUndefined();
  expect(formatSessionDate(at)).toBe("2023-05-08 (Monday)");
});

test("turns are chunked in order to the budget; a turn larger than it goes alone", () => {
  const turns = [10, 10, 10, 100, 10].map((chars, i) => ({ number: i + 1, speaker: "A", content: "x".repeat(chars * 4) }));
  const chunks = chunkTurns(turns, 30);
  expect(chunks.map((c) => c.map((t) => t.number))).toEqual([[1, 2], [3], [4], [5]]);
  expect(chunks.flat()).toHaveLength(turns.length);
  expect(turnBudget(8192, 1000)).toBe(5144);
  expect(turnBudget(1024, 5000)).toBe(256);
});

test("answers lose their reasoning and fences before they are parsed", () => {
  expect(stripThinking("<think>{not this}</think> {\"a\":1}")).toBe('{"a":1}');
  expect(stripThinking("half of a thought </think>{\"a\":1}")).toBe('{"a":1}');
  expect(stripThinking('{"a":1}<think>cut off')).toBe('{"a":1}');
  expect(extractJsonText('Sure!\n```json\n{"a": [1]}\n```\nAnything else?')).toBe('{"a": [1]}');
  expect(extractJsonText('The answer is {"a": 1}. Done.')).toBe('{"a": 1}');
  const Schema = v.object({ a: v.number() });
  expect(checkOutput(Schema, '{"a": 2}')).toEqual({ ok: true, value: { a: 2 } });
  const wrong = checkOutput(Schema, '{"a": "2"}');
  expect(wrong.ok).toBe(false);
  expect(!wrong.ok && wrong.problem).toMatch(/^JSON does not match the schema: a: /);
  expect(!checkOutput(Schema, "").ok && (checkOutput(Schema, "") as { problem: string }).problem).toMatch(/\(empty answer\)/);
});

test("the extraction prompt carries the steering prompt, the session date and numbered turns", () => {
  const [system, user] = buildExtractionMessages({
    steeringPrompt: "Track status transitions.",
    contentType: "jira",
    sessionTitle: "PROJ-1",
    sessionDate: "2023-05-08 (Monday)",
    part: { index: 1, of: 3 },
    turns: [{ number: 4, speaker: "alice", content: "Moved to Done" }],
  });
  expect(system!.content).toContain("jira content");
  expect(system!.content).toContain("Track status transitions.");
  expect(user!.content).toBe("Session: PROJ-1\nSession date: 2023-05-08 (Monday)\nPart 2 of 3\n\n[4] alice: Moved to Done");
});
