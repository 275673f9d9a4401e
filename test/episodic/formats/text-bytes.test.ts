import { describe, expect, test } from "bun:test";
import { findInvalidUtf8, notTextReason } from "../../../src/episodic/formats/text-bytes.ts";
import { memoryBlocks, readTextLines, type TextLine } from "../../../src/episodic/formats/text-lines.ts";
import { expectGllamError } from "../../helpers.ts";

const bytes = (...parts: (string | number[])[]) => new Uint8Array(parts.flatMap((p) => (typeof p === "string" ? [...new TextEncoder().encode(p)] : p)));

/** Deterministic noise (xorshift), like a random binary file. */
function noise(n: number, seed = 7): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

describe("findInvalidUtf8", () => {
  test.each([
    ["ascii", bytes("hello"), -1],
    ["two, three and four byte characters", bytes("é€😀"), -1],
    ["a lone continuation byte", bytes("ab", [0x80], "c"), 2],
    ["an overlong encoding of /", bytes("x", [0xc0, 0xaf]), 1],
    ["an overlong three-byte form", bytes([0xe0, 0x80, 0xaf]), 0],
    ["a UTF-16 surrogate", bytes("ok", [0xed, 0xa0, 0x80]), 2],
    ["above U+10FFFF", bytes([0xf4, 0x90, 0x80, 0x80]), 0],
    ["a latin-1 byte", bytes("caf", [0xe9], " au lait"), 3],
    ["a character cut by the end", bytes("ab", [0xe2, 0x82]), 2],
  ])("%s", (_, input, offset) => {
    expect(findInvalidUtf8(input)).toBe(offset);
  });

  test("a character cut by the end of an incomplete block is not invalid", () => {
    expect(findInvalidUtf8(bytes("ab", [0xe2, 0x82]), false)).toBe(-1);
  });
});

describe("notTextReason: the rule", () => {
  test.each([
    ["prose", bytes("# Notes\n\nThe ferry leaves at noon.\tTabs,\r\nCRLF, \x1b[1mANSI\x1b[0m and café."), undefined],
    ["a few invalid bytes among text", bytes("x".repeat(200), [0xff, 0xfe], "y".repeat(200)), undefined],
    ["random bytes", noise(3000), /NUL byte|control characters or invalid UTF-8/],
    ["random bytes without a NUL", noise(3000).map((b) => b || 1), /control characters or invalid UTF-8/],
    ["UTF-16 text", new Uint8Array(Buffer.from("hello world", "utf16le")), /NUL byte at byte 1/],
    ["control characters", bytes("a\x01\x02\x03\x04b"), /control characters/],
  ])("%s", (_, input, expected) => {
    const reason = notTextReason(input, true);
    if (expected === undefined) expect(reason).toBeUndefined();
    else expect(reason).toMatch(expected);
  });
});

const lines = (input: Uint8Array, options: Partial<Parameters<typeof readTextLines>[1]> = {}, blockBytes = 5): TextLine[] => [
  ...readTextLines(memoryBlocks(input, blockBytes), { file: "f.txt", maxLineBytes: 1000, longLines: "bad", ...options }),
];

describe("readTextLines", () => {
  test("lines across small blocks, CRLF dropped, multi-byte characters split by blocks kept whole", () => {
    expect(lines(bytes("héllo wörld\r\nsecond\n\nlast"))).toEqual([
      { line: 1, text: "héllo wörld" },
      { line: 2, text: "second" },
      { line: 3, text: "" },
      { line: 4, text: "last" },
    ]);
  });

  test("a line with invalid UTF-8 is reported with its file byte offset; its neighbours are read", () => {
    expect(lines(bytes("good\nba", [0xff], "d\nfine\n"))).toEqual([
      { line: 1, text: "good" },
      { line: 2, problem: "invalid UTF-8 at byte 7" },
      { line: 3, text: "fine" },
    ]);
  });

  test("a line over the limit is a bad record (one record a line), or cut into pieces (prose)", () => {
    const input = bytes("short\n", "x".repeat(25), "\nafter");
    expect(lines(input, { maxLineBytes: 10 })).toEqual([
      { line: 1, text: "short" },
      { line: 2, problem: "line longer than 10 bytes" },
      { line: 3, text: "after" },
    ]);
    const cut = lines(bytes("€".repeat(10), "\nafter"), { maxLineBytes: 10, longLines: "cut" });
    expect(cut.map((l) => ("text" in l ? l.text : l.problem)).join("|")).toBe("€€€|€€€|€€€|€|after");
  });

  test("a NUL byte anywhere, or a binary start, refuses the file as not text", async () => {
    await expectGllamError(() => lines(bytes("a\nb\n", "c".repeat(100), [0], "\n")), "E_BAD_INPUT", /f\.txt: not text \(a NUL byte at byte 104\)/);
    await expectGllamError(() => lines(noise(3000), {}, 1 << 20), "E_BAD_INPUT", /f\.txt: not text/);
  });
});
