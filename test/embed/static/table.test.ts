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

  test("word lists keep the first spelling of each word, in order", () => {
    expect(parseWordList("you\nI\nthe\nThe\n\n  What \nwhat\n")).toEqual(["you", "I", "the", "What"]);
  });
});
