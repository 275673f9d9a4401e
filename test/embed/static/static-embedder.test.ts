import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { loadStaticEmbedder } from "../../../src/embed/static/bundled-table.ts";
import { createStaticEmbedder, toInt8Vector, zipfWeights } from "../../../src/embed/static/static-embedder.ts";
import { decodeStaticTable } from "../../../src/embed/static/table.ts";
import { createEmbedderFromSpec } from "../../../src/embed/spec.ts";
import { createPooledEmbedder } from "../../../src/embed/worker-pool.ts";
import { forEachWord } from "../../../src/embed/static/words.ts";
import { ensureTestStaticTable } from "../../static-table.ts";
import { expectGllamError } from "../../helpers.ts";

const embedder = loadStaticEmbedder();
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe("the static embedder", () => {
  test("gives unit vectors of the table's dimension, the same for the same text, none for an empty one", async () => {
    const [a, b, c] = embedder.embedSync(["The ferry leaves at noon.", "The ferry leaves at noon.", "?!"]);
    expect(a!.length).toBe(embedder.dims);
    expect(Math.sqrt(dot(a!, a!))).toBeCloseTo(1, 5);
    expect([...a!]).toEqual([...b!]);
    expect(Math.sqrt(dot(c!, c!))).toBeCloseTo(1, 5);
    expect(await embedder.embed(["ferry"])).toEqual(embedder.embedSync(["ferry"]));
    await expectGllamError(() => embedder.embedSync(["ok", " "]), "E_BAD_INPUT", /item 1/);
    expect(embedder.modelVersion).toMatch(/^static-[0-9a-f]{12}:use-lite-512/);
  });

  test("words are case-insensitive, frequent words weigh little, and unknown words still count (by their pieces)", () => {
    const [lower, upper] = embedder.embedSync(["money and time", "MONEY AND TIME"]);
    expect(dot(lower!, upper!)).toBeCloseTo(1, 5);
    // Adding the most frequent words barely moves a text; adding a content word moves it.
    const [base, withStopWords, withContent] = embedder.embedSync(["money problems", "you the money to problems it", "money problems doctor"]);
    expect(dot(base!, withStopWords!)).toBeGreaterThan(dot(base!, withContent!));
    const [known, unknown] = embedder.embedSync(["doctor", "doctor zebrafishery"]);
    expect(dot(known!, unknown!)).toBeLessThan(0.999);
    const { weights, unknown: rare } = zipfWeights([1, 10, 1000], 30_000);
    expect([...weights].every((w, i) => i === 0 || w > weights[i - 1]!)).toBe(true);
    expect(rare).toBeGreaterThan(weights[2]!);
  });

  test("wordVector: a list word's vector as embedSync gives its one-word text, written into the buffer; false outside the list", () => {
    const into = new Float32Array(embedder.dims);
    expect(embedder.wordVector("Money", into)).toBe(true);
    expect(dot(into, embedder.embedSync(["money"])[0]!)).toBeCloseTo(1, 5);
    expect(embedder.words.map((word) => word.toLowerCase())).toContain("money");
    expect(embedder.wordVector("zebrafishery", into)).toBe(false);
  });

  test("a table holding only some of the words embeds texts of those words exactly as the bigger table", async () => {
    const bigger = createStaticEmbedder(decodeStaticTable(new Uint8Array(readFileSync(await ensureTestStaticTable(["zebra"]))), "bigger"));
    const texts = ["I think the money is fine", "Where is the doctor?"];
    expect(bigger.modelVersion).not.toBe(embedder.modelVersion);
    expect(bigger.embedSync(texts)).toEqual(embedder.embedSync(texts));
    expect(dot(bigger.embedSync(["zebra"])[0]!, embedder.embedSync(["zebra"])[0]!)).toBeLessThan(0.999);
  });

  test("words split at punctuation and apostrophes, keep letters of any script", () => {
    const words: string[] = [];
    forEachWord("Don't stop: São Paulo's 2023 café—ok 👍 Ελληνικά", (word) => words.push(word));
    expect(words).toEqual(["Don", "t", "stop", "São", "Paulo", "s", "2023", "café", "ok", "Ελληνικά"]);
  });

  test("int8 storage keeps the direction", () => {
    const [v] = embedder.embedSync(["We booked the ferry to Tangier."]);
    const q = toInt8Vector(v!);
    const back = Float32Array.from(q);
    expect(dot(v!, back) / Math.sqrt(dot(back, back))).toBeGreaterThan(0.9999);
  });

  test("rebuilds from its spec in a worker pool and gives the same vectors there", async () => {
    expect(embedder.spec).toEqual({ kind: "static", path: process.env.GLLAM_STATIC_TABLE });
    const rebuilt = await createEmbedderFromSpec(embedder.spec!);
    expect(rebuilt.modelVersion).toBe(embedder.modelVersion);
    const pool = createPooledEmbedder({ ...embedder, spec: embedder.spec! }, { workers: 1 });
    try {
      const texts = ["a turn about kayaks", "another about the weather"];
      expect(await pool.embed(texts)).toEqual(embedder.embedSync(texts));
    } finally {
      pool.close();
    }
  });
});
