import { describe, expect, test } from "bun:test";
import { EmbeddingsModel } from "@energetic-ai/embeddings";
import { readModelVocabulary } from "../../../src/embed/local-model-runtime.ts";
import { createPieceTokenizer } from "../../../src/embed/static/piece-tokenizer.ts";
import { WORD_LIST } from "../../static-table.ts";

const vocabulary = await readModelVocabulary();
// The model package's own tokenizer (its constructor needs no model to tokenize).
const reference = new EmbeddingsModel({ vocabulary: vocabulary as [string, number][], model: null as never }).tokenizer;
const tokenizer = createPieceTokenizer(vocabulary);

describe("the piece tokenizer", () => {
  test("gives the model's own piece ids for list words, rare words, names, numbers, symbols and other scripts", () => {
    const samples = [
      ...WORD_LIST.filter((_, i) => i % 7 === 0),
      ...WORD_LIST.slice(-500).map((word) => `${word}ness`),
      "Caroline", "McAllister", "LGBTQ+", "2023/05/20 (Sat)", "1:56 pm on 8 May, 2023", "https://example.com/a?b=c",
      "São Paulo", "naïve café", "ﬁne ligature", "😀 emoji 👍🏽", "日本語テキスト", "Ελληνικά", "x\u0301", "  double  space ",
      ":) :( ://", "qzxqzxqzxq", "a".repeat(40), "",
    ];
    const mismatches = samples.filter((text) => JSON.stringify(tokenizer.encode(text)) !== JSON.stringify(reference.encode(text)));
    expect(mismatches).toEqual([]);
    expect(samples.length).toBeGreaterThan(4500);
  });

  test("splits an unknown word into known pieces", () => {
    const ids = tokenizer.encode("snorkelling");
    expect(ids.length).toBeGreaterThan(1);
    expect(ids.map((id) => vocabulary[id]![0]).join("")).toBe("\u2581snorkelling");
  });
});
