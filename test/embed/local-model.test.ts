import { describe, expect, test } from "bun:test";
import { LOCAL_MODEL_DIMS } from "../../src/embed/local-model.ts";
import { expectGllamError, localEmbedder } from "../helpers.ts";

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

describe("the bundled model", () => {
  test("gives 512-dimensional unit vectors", async () => {
    const [vector] = await localEmbedder.embed(["Caddy is a web server"]);
    expect(vector).toBeInstanceOf(Float32Array);
    expect(vector!.length).toBe(LOCAL_MODEL_DIMS);
    expect(Math.sqrt(dot(vector!, vector!))).toBeCloseTo(1, 4);
  });

  test("puts a paraphrase nearer than an unrelated sentence", async () => {
    const [query, paraphrase, unrelated] = await localEmbedder.embed([
      "How do I restart the database?",
      "What is the way to reboot Postgres?",
      "My cat likes to sleep in the sun.",
    ]);
    expect(dot(query!, paraphrase!)).toBeGreaterThan(dot(query!, unrelated!));
  });

  test("batches larger than one forward pass return one vector per text, in order", async () => {
    const texts = Array.from({ length: 70 }, (_, i) => `sentence number ${i} about topic ${i % 7}`);
    const batch = await localEmbedder.embed(texts);
    expect(batch).toHaveLength(70);
    const [last] = await localEmbedder.embed([texts[69]!]);
    for (let i = 0; i < LOCAL_MODEL_DIMS; i++) expect(batch[69]![i]).toBeCloseTo(last![i]!, 5);
  });

  test("refuses empty texts instead of returning garbage", async () => {
    await expectGllamError(localEmbedder.embed(["fine", "   "]), "E_BAD_INPUT", /item 1/);
  });
});
