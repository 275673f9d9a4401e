import { describe, expect, test } from "bun:test";
import { decodeStaticTable, encodeStaticTable, parseWordList, quantiseRows, type StaticTable } from "../../../src/embed/static/table.ts";
import { expectGllamError } from "../../helpers.ts";

const rows = [Float32Array.of(0.5, -0.25, 0.125), Float32Array.of(-2, 1, 0), Float32Array.of(0, 0, 0)];
const table: StaticTable = {
  modelVersion: "static-test",
  dims: 3,
  pieceRows: 1,
  pieces: [["\u2581a", -1], [":", null]],
  words: ["Hello", "world"],
  ranks: [3, 9],
  listSize: 10,
  ...quantiseRows(rows, 3),
};

describe("the static table file", () => {
  test("round-trips, and int8 rows come back within half a quantisation step", () => {
    const back = decodeStaticTable(encodeStaticTable(table), "t.bin");
    expect(back).toMatchObject({ modelVersion: "static-test", dims: 3, pieceRows: 1, words: ["Hello", "world"], ranks: [3, 9], listSize: 10, pieces: table.pieces });
    rows.forEach((row, r) => row.forEach((x, i) => expect(Math.abs(back.values[r * 3 + i]! * back.scales[r]! - x)).toBeLessThanOrEqual(back.scales[r]! / 2 + 1e-9)));
    expect(Math.max(...back.values.subarray(0, 3).map(Math.abs))).toBe(127);
  });

  test("a truncated, foreign or inconsistent file is refused with its name", async () => {
    const bytes = encodeStaticTable(table);
    await expectGllamError(() => decodeStaticTable(bytes.subarray(0, bytes.length - 1), "cut.bin"), "E_EMBEDDER", /cut\.bin .*expected \d+ bytes/);
    await expectGllamError(() => decodeStaticTable(new TextEncoder().encode("SQLite format 3\0..."), "db.bin"), "E_EMBEDDER", /db\.bin is not a static embedding table: wrong magic/);
    await expectGllamError(() => decodeStaticTable(encodeStaticTable({ ...table, ranks: [1] }), "odd.bin"), "E_EMBEDDER", /inconsistent header/);
  });

  test("rows are views of the file's bytes, not copies; float scales are copied only off a 4-byte boundary", () => {
    const bytes = encodeStaticTable(table);
    const back = decodeStaticTable(bytes, "t.bin");
    expect(back.values.buffer).toBe(bytes.buffer);
    expect(back.scales.buffer).toBe(bytes.buffer);
    // The same file one byte into a larger buffer: the scales cannot be a float32 view there.
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    const moved = decodeStaticTable(shifted.subarray(1), "shifted.bin");
    expect(moved.values.buffer).toBe(shifted.buffer);
    expect(moved.scales.buffer).not.toBe(shifted.buffer);
    expect([...moved.scales]).toEqual([...back.scales]);
    expect([...moved.values]).toEqual([...back.values]);
  });

  test.each([
    ["words", { words: ["Hello", 7] }, /words: expected an array of strings/],
    ["ranks", { ranks: [3, 0] }, /ranks: expected an array of integers from 1/],
    ["pieces", { pieces: [["\u2581a", "x"], [":", null]] }, /pieces: expected an array of \[piece, score or null\] pairs/],
    ["dims", { dims: 0 }, /dims: /],
  ])("a header with bad %s is refused, naming the field", async (_, change, message) => {
    const bytes = encodeStaticTable({ ...table, ...(change as Partial<StaticTable>) });
    await expectGllamError(() => decodeStaticTable(bytes, "bad.bin"), "E_EMBEDDER", message);
  });

  test("word lists keep the first spelling of each word, in order", () => {
    expect(parseWordList("you\nI\nthe\nThe\n\n  What \nwhat\n")).toEqual(["you", "I", "the", "What"]);
  });
});
