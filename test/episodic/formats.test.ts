import { describe, expect, test } from "bun:test";
import { parseSourceDate } from "../../src/episodic/formats/dates.ts";
import { findJsonErrorOffset, nestsDeeperThan } from "../../src/episodic/formats/json-text.ts";
import { chunkDocument } from "../../src/episodic/formats/markdown.ts";
import { openSourceBytes, type ReadSourceOptions } from "../../src/episodic/formats/read-source.ts";
import { collectSource } from "../../src/episodic/ingest.ts";
import { expectGllamError } from "../helpers.ts";

/** A text as ingest reads it: records checked against the schema, held in memory. */
const parseSourceText = (text: string, file: string, options: ReadSourceOptions & { skipBad?: boolean } = {}) => collectSource(openSourceBytes(text, file, options), options.skipBad);

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

describe("parseSourceDate", () => {
  test.each([
    ["1:56 pm on 8 May, 2023", "2023-05-08T13:56:00.000Z"],
    ["12:09 am on 1 January, 2024", "2024-01-01T00:09:00.000Z"],
    ["2023/05/20 (Sat) 02:21", "2023-05-20T02:21:00.000Z"],
    ["2023/05/20", "2023-05-20T00:00:00.000Z"],
    ["March-15-2024", "2024-03-15T00:00:00.000Z"],
    ["Sept 3, 2024", "2024-09-03T00:00:00.000Z"],
    ["8 May 2023", "2023-05-08T00:00:00.000Z"],
    ["2024-01-02T10:00:00+02:00", "2024-01-02T08:00:00.000Z"],
    ["2024-01-02 10:00", "2024-01-02T10:00:00.000Z"],
    [1700000000, "2023-11-14T22:13:20.000Z"],
    [1700000000000, "2023-11-14T22:13:20.000Z"],
    ["31 February 2023", undefined],
    ["13:00 pm on 1 May, 2023", undefined],
    ["yesterday", undefined],
    [null, undefined],
  ])("%p", (input, expected) => {
    expect(iso(parseSourceDate(input))).toBe(expected);
  });
});

describe("ingest formats", () => {
  test("JSONL: sessions, speaker or role, content or text, timestamps, positions", () => {
    const text = [
      '{"session_id": "a", "speaker": "Ann", "content": "hello", "timestamp": "2024-01-01T09:00:00Z"}',
      "",
      '{"session_id": "a", "role": "assistant", "text": "hi Ann"}',
      '{"session_id": "b", "role": "Bob", "content": "later", "seq": 5, "metadata": {"mood": "ok"}}',
    ].join("\n");
    const { episodes, format } = parseSourceText(text, "chat.jsonl");
    expect(format).toBe("jsonl");
    const base = { scope: "default", kind: "turn" as const };
    expect(episodes).toEqual([
      { ...base, sessionId: "a", seq: 0, role: "", speaker: "Ann", content: "hello", occurredAt: Date.UTC(2024, 0, 1, 9), metadata: { line: 1 } },
      { ...base, sessionId: "a", seq: 1, role: "assistant", speaker: "", content: "hi Ann", occurredAt: undefined, metadata: { line: 3 } },
      { ...base, sessionId: "b", seq: 5, role: "", speaker: "Bob", content: "later", occurredAt: undefined, metadata: { mood: "ok", line: 4 } },
    ]);
  });

  test.each([
    ['{"session_id": "a", "content": "ok"}\n{"session_id": "a" "content": "x"}', /chat\.jsonl:2: invalid JSON/],
    ['{"session_id": "a"}', /chat\.jsonl:1: missing "content"/],
    ['[1, 2]', /chat\.jsonl:1: expected a JSON object/],
    ['{"content": "x", "timestamp": "someday"}', /chat\.jsonl:1: unreadable timestamp "someday"/],
    ['{"content": "x", "seq": -1}', /chat\.jsonl:1: seq: Invalid value: Expected >=0/],
  ])("JSONL error %#: file:line and the problem", async (text, message) => {
    await expectGllamError(() => parseSourceText(text, "chat.jsonl"), "E_BAD_INPUT", message);
  });

  test("--skip-bad lists bad records and keeps the rest", () => {
    const text = '{"content": "good one"}\nnot json\n{"content": ""}\n{"content": "good two"}';
    const parsed = parseSourceText(text, "chat.jsonl", { skipBad: true, session: "s" });
    expect(parsed.episodes.map((e) => e.content)).toEqual(["good one", "good two"]);
    expect(parsed.bad.map((b) => b.where)).toEqual(["chat.jsonl:2", "chat.jsonl:3"]);
  });

  const locomo = [
    {
      sample_id: "conv-x",
      conversation: {
        speaker_a: "Ann",
        speaker_b: "Bob",
        session_2_date_time: "9:00 am on 3 June, 2023",
        session_2: [{ speaker: "Bob", dia_id: "D2:1", text: "Back again." }],
        session_1_date_time: "1:56 pm on 8 May, 2023",
        session_1: [
          { speaker: "Ann", dia_id: "D1:1", text: "Look at this!", blip_caption: "a dog on a beach", img_url: ["http://x/y.jpg"] },
          { speaker: "Bob", dia_id: "D1:2", text: "Cute." },
        ],
      },
      qa: [],
    },
  ];

  test("LoCoMo (detected): sessions in order with their dates, photos as text, dia_ids kept", () => {
    const { format, sessions, episodes } = parseSourceText(JSON.stringify(locomo), "locomo.json");
    expect(format).toBe("locomo");
    expect(sessions.map((s) => [s.id, iso(s.startedAt)])).toEqual([
      ["conv-x/session_1", "2023-05-08T13:56:00.000Z"],
      ["conv-x/session_2", "2023-06-03T09:00:00.000Z"],
    ]);
    expect(episodes[0]).toMatchObject({ speaker: "Ann", content: "Look at this! [shares a photo of a dog on a beach]", metadata: { dia_id: "D1:1" }, seq: 0 });
    expect(episodes.map((e) => e.metadata.dia_id)).toEqual(["D1:1", "D1:2", "D2:1"]);
  });

  test("LoCoMo: a turn without text is an error naming its place", async () => {
    const bad = structuredClone(locomo);
    (bad[0]!.conversation.session_1[1] as { text?: string }).text = undefined;
    await expectGllamError(() => parseSourceText(JSON.stringify(bad), "l.json"), "E_BAD_INPUT", /l\.json: \[0\]\.conversation\.session_1\[1\]: turn has no "text"/);
  });

  test("LongMemEval (detected): one unit per question, sessions with their dates and roles", () => {
    const lme = [
      {
        question_id: "q1",
        question: "?",
        haystack_session_ids: ["sess-a", "sess-b"],
        haystack_dates: ["2023/05/20 (Sat) 02:21", "2023/05/21 (Sun) 10:00"],
        haystack_sessions: [[{ role: "user", content: "I bought a kayak." }, { role: "assistant", content: "Nice!" }], [{ role: "user", content: "Rain today." }]],
        answer_session_ids: ["sess-a"],
      },
    ];
    const { format, episodes } = parseSourceText(JSON.stringify(lme), "lme.json");
    expect(format).toBe("longmemeval");
    expect(episodes.map((e) => [e.sessionId, e.seq, e.role, iso(e.occurredAt)])).toEqual([
      ["sess-a", 0, "user", "2023-05-20T02:21:00.000Z"],
      ["sess-a", 1, "assistant", "2023-05-20T02:21:00.000Z"],
      ["sess-b", 0, "user", "2023-05-21T10:00:00.000Z"],
    ]);
  });

  test("BEAM (detected): batches of sessions, time anchors carried forward, index marks removed", () => {
    const beam = [
      {
        batch_number: 1,
        time_anchor: null,
        turns: [
          [
            { role: "user", id: 0, time_anchor: "March-15-2024", index: "1,1", content: "Plan my week ->-> 1,1" },
            { role: "assistant", id: 1, content: "Sure." },
          ],
        ],
      },
    ];
    const { format, episodes } = parseSourceText(JSON.stringify(beam), "chat.json", { session: "beam-1" });
    expect(format).toBe("beam");
    expect(episodes.map((e) => [e.sessionId, e.content, iso(e.occurredAt), e.metadata.id])).toEqual([
      ["beam-1/batch-1/1", "Plan my week", "2024-03-15T00:00:00.000Z", 0],
      ["beam-1/batch-1/1", "Sure.", "2024-03-15T00:00:00.000Z", 1],
    ]);
  });

  test("JSON of no known shape, and broken JSON, name the file and place", async () => {
    await expectGllamError(() => parseSourceText('{"a": 1}', "x.json"), "E_BAD_INPUT", /x\.json: cannot tell the format/);
    await expectGllamError(() => parseSourceText('[\n  {"a": 1},\n  {"b" 2}\n]', "x.json"), "E_BAD_INPUT", /x\.json:3:8: invalid JSON/);
  });

  test("findJsonErrorOffset agrees with JSON.parse on valid and invalid texts", () => {
    for (const valid of ['{"a":[1,2.5e3,-0,true,false,null,"\\u00e9\\n"]}', "  []  ", '"x"']) expect(findJsonErrorOffset(valid)).toBe(-1);
    for (const [invalid, at] of [["[1,]", 3], ['{"a":1,}', 7], ["[01]", 2], ['"a\tb"', 2], ["[1] [2]", 4]] as const) {
      expect(() => JSON.parse(invalid)).toThrow();
      expect(findJsonErrorOffset(invalid)).toBe(at);
    }
  });
});

describe("Markdown and text chunks", () => {
  const doc = ["# Guide", "", "Intro.", "", "## Install", "", "Run the installer.", "", "```sh", "# not a heading", "```", "", "## Use", "", "Open it."].join("\n");

  test("split at headings, code fences respected, heading path in front", () => {
    const { episodes, format } = parseSourceText(doc, "guide.md");
    expect(format).toBe("markdown");
    expect(episodes.map((e) => e.content)).toEqual(["Guide\n\nIntro.", "Guide > Install\n\nRun the installer.\n\n```sh\n# not a heading\n```", "Guide > Use\n\nOpen it."]);
    expect(episodes.every((e) => e.kind === "chunk" && e.sessionId === "guide.md")).toBe(true);
    expect(episodes[1]!.metadata).toMatchObject({ headings: ["Guide", "Install"], lines: [7, 11] });
  });

  test("long sections become overlapping chunks of bounded size; text files ignore #", () => {
    const long = Array.from({ length: 60 }, (_, i) => `Sentence number ${i} is here.`).join(" ");
    const chunks = chunkDocument(`# T\n\n${long}`, true, { maxChars: 400, overlapChars: 80 });
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(400);
    for (let i = 1; i < chunks.length; i++) {
      const previousTail = chunks[i - 1]!.text.slice(-40);
      expect(chunks[i]!.text.includes(previousTail.slice(previousTail.indexOf(" ") + 1))).toBe(true);
    }
    const { episodes } = parseSourceText("# not a heading\n\nbody", "notes.txt");
    expect(episodes[0]!.content).toBe("# not a heading\n\nbody");
  });

  test("an unknown --format is refused", async () => {
    await expectGllamError(() => parseSourceText("x", "a.txt", { format: "csv" as never }), "E_BAD_INPUT", /unknown format "csv"/);
  });
});

describe("records are checked at parse time against the episode schema (what the table would refuse)", () => {
  const line = (record: Record<string, unknown>) => JSON.stringify({ session_id: "s", content: "fine", ...record });

  test("fractional epoch seconds (Python's time.time()) and fractional ms are rounded to whole ms", () => {
    const text = [line({ timestamp: 1714557600.123456 }), line({ timestamp: "1714557600.5" }), line({ timestamp: 1714557600123.6 })].join("\n");
    expect(parseSourceText(text, "c.jsonl").episodes.map((e) => e.occurredAt)).toEqual([1714557600123, 1714557600500, 1714557600124]);
  });

  test.each([
    [{ timestamp: 1e20 }, /c\.jsonl:1: unreadable timestamp 100000000000000000000/],
    [{ timestamp: "2023-02-30" }, /c\.jsonl:1: unreadable timestamp "2023-02-30"/],
    [{ seq: 2 ** 63 }, /c\.jsonl:1: seq: must be a whole number below 2\^53/],
    [{ seq: 1.5 }, /c\.jsonl:1: seq: must be a whole number below 2\^53/],
    [{ content: "x".repeat(1_000_001) }, /c\.jsonl:1: content: must be at most 1,000,000 characters/],
    [{ content: "\u0000\u0001\u0007" }, /c\.jsonl:1: content: must not be empty/],
    [{ metadata: JSON.parse(`${'{"a":'.repeat(100)}1${"}".repeat(100)}`) }, /c\.jsonl:1: metadata: must not nest deeper than 64 levels/],
    [{ session_id: "s".repeat(600) }, /c\.jsonl:1: sessionId: Invalid length/],
  ])("%#: a value only the table refused is a bad record named file:line", async (record, message) => {
    await expectGllamError(() => parseSourceText(`${line({})}\n${line(record)}`.split("\n").reverse().join("\n"), "c.jsonl"), "E_BAD_INPUT", message);
    const skipped = parseSourceText(`${line({ content: "kept" })}\n${line(record)}`, "c.jsonl", { skipBad: true });
    expect(skipped.episodes.map((e) => e.content)).toEqual(["kept"]);
    expect(skipped.bad.map((b) => b.where)).toEqual(["c.jsonl:2"]);
  });

  test("metadata nested five million deep is a coded error, not a stack overflow", async () => {
    const depth = 5_000_000;
    const text = `{"content": "x", "metadata": {"a": ${"[".repeat(depth)}${"]".repeat(depth)}}}`;
    await expectGllamError(() => parseSourceText(text, "deep.jsonl"), "E_BAD_INPUT", /deep\.jsonl:1: JSON nested deeper than 65 levels/);
  });

  test("nesting is checked without parsing (strings skipped)", () => {
    expect(nestsDeeperThan('{"a": "[[[[[[", "b": [[1]]}', 3)).toBe(false);
    expect(nestsDeeperThan('{"a": "\\"[[[[", "b": [[[1]]]}', 3)).toBe(true);
  });

  test("a syntax error deep inside nested JSON has a real position", async () => {
    const depth = 200_000;
    const text = `[${"[".repeat(depth)}1,]${"]".repeat(depth)}`;
    await expectGllamError(() => parseSourceText(text, "deep.json", { format: "locomo" }), "E_BAD_INPUT", new RegExp(`deep\\.json:1:${depth + 4}: invalid JSON`));
  });

  test("control characters are cleaned out of content (and so out of its identity)", () => {
    expect(parseSourceText(line({ content: "a\u0000b\u0008c\td" }), "c.jsonl").episodes[0]!.content).toBe("abc\td");
  });

  test("impossible dates in the JSON formats are unreadable, not rolled over", async () => {
    const lme = [{ question_id: "q", haystack_session_ids: ["s"], haystack_dates: ["2023/02/30 (Thu) 10:00"], haystack_sessions: [[{ role: "user", content: "hi" }]] }];
    await expectGllamError(() => parseSourceText(JSON.stringify(lme), "lme.json"), "E_BAD_INPUT", /lme\.json: \[0\]\.haystack_dates\[0\]: unreadable date "2023\/02\/30 \(Thu\) 10:00"/);
  });

  test("a BEAM chat without --session is named by its file's base name and content, wherever the file is", () => {
    const beam = JSON.stringify([{ batch_number: 1, time_anchor: "March-15-2024", turns: [[{ role: "user", id: 0, content: "Plan my week" }]] }]);
    const here = parseSourceText(beam, "/data/a/chat.json").episodes[0]!.sessionId;
    expect(here).toMatch(/^chat\.json#[0-9a-f]{12}\/batch-1\/1$/);
    expect(parseSourceText(beam, "/elsewhere/b/chat.json").episodes[0]!.sessionId).toBe(here);
    expect(parseSourceText(beam.replace("week", "month"), "/data/a/chat.json").episodes[0]!.sessionId).not.toBe(here);
  });

  test("binary data and invalid UTF-8: refused as not text, or a bad record naming the byte offset", async () => {
    const random = new Uint8Array(3000).map((_, i) => (i * 2654435761) >>> 24);
    for (const name of ["r.md", "r.txt", "r.bin", "r.jsonl", "r.json"]) {
      await expectGllamError(() => collectSource(openSourceBytes(random, name)), "E_BAD_INPUT", /not text/);
    }
    const latin1 = new Uint8Array([...new TextEncoder().encode('{"content": "ok"}\n{"content": "caf'), 0xe9, ...new TextEncoder().encode('"}\n')]);
    await expectGllamError(() => collectSource(openSourceBytes(latin1, "l.jsonl")), "E_BAD_INPUT", /l\.jsonl:2: invalid UTF-8 at byte 34/);
    expect(collectSource(openSourceBytes(latin1, "l.jsonl"), true).bad).toEqual([{ where: "l.jsonl:2", problem: "invalid UTF-8 at byte 34" }]);
    await expectGllamError(() => collectSource(openSourceBytes(latin1, "l.json", { format: "beam" })), "E_BAD_INPUT", /l\.json: invalid UTF-8 at byte 34/);
  });
});
