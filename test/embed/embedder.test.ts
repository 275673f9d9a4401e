import { describe, expect, test } from "bun:test";
import { checkVectors } from "../../src/embed/embedder.ts";
import { expectGllamError } from "../helpers.ts";

describe("checkVectors", () => {
  test("returns the dimension of finite vectors; refuses NaN, ±Infinity, a wrong count or length", async () => {
    const vectors = [Float32Array.of(0.5, -0.25, 0), Float32Array.of(1, 2, 3e38)];
    expect(checkVectors(vectors, 2, "test")).toBe(3);
    for (const bad of [NaN, Infinity, -Infinity]) {
      await expectGllamError(() => checkVectors([Float32Array.of(1, 2, 3), Float32Array.of(1, bad, 3)], 2, "test"), "E_EMBEDDER_RESPONSE", /non-finite value in vector 1/);
    }
    await expectGllamError(() => checkVectors(vectors, 3, "test"), "E_EMBEDDER_RESPONSE", /2 vectors for 3 texts/);
    await expectGllamError(() => checkVectors([Float32Array.of(1, 2), Float32Array.of(1)], 2, "test"), "E_EMBEDDER_RESPONSE", /length 1, expected 2/);
  });
});
