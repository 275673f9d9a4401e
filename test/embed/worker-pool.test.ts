import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createEmbedderFromSpec } from "../../src/embed/spec.ts";
import { createPooledEmbedder } from "../../src/embed/worker-pool.ts";
import { hashVector } from "../fixtures/hash-embedder.ts";
import { expectGllamError, makeTempDir } from "../helpers.ts";

const dir = makeTempDir();
const spec = { kind: "module" as const, path: join(import.meta.dir, "../fixtures/hash-embedder.ts") };

describe("embedding worker pool", () => {
  test("spreads a batch over the workers and returns vectors in input order", async () => {
    const template = await createEmbedderFromSpec(spec);
    const pool = createPooledEmbedder({ ...template, spec, embed: template.embed }, { workers: 2, chunkSize: 3 });
    const texts = Array.from({ length: 20 }, (_, i) => `text number ${i}`);
    const vectors = await pool.embed(texts);
    expect(vectors.map((v) => [...v])).toEqual(texts.map((t) => [...hashVector(t)]));
    expect(pool.modelVersion).toBe("hash-16@test");
    pool.close();
  });

  test("a worker that dies is replaced and its batch retried", async () => {
    const template = await createEmbedderFromSpec(spec);
    const pool = createPooledEmbedder({ ...template, spec, embed: template.embed }, { workers: 2, chunkSize: 2 });
    const texts = ["one", "two", `CRASH@${dir} three`, "four", "five"];
    const vectors = await pool.embed(texts);
    expect(existsSync(join(dir, "crashed"))).toBe(true);
    expect(pool.restarts).toBeGreaterThanOrEqual(1);
    expect(vectors.map((v) => [...v])).toEqual(texts.map((t) => [...hashVector(t)]));
    expect((await pool.embed(["still works"])).length).toBe(1);
    pool.close();
  });

  test("a batch that kills every worker fails with E_EMBEDDER after the retries; the pool lives on", async () => {
    const template = await createEmbedderFromSpec(spec);
    const pool = createPooledEmbedder({ ...template, spec, embed: template.embed }, { workers: 1, maxRetries: 1 });
    await expectGllamError(pool.embed(["ALWAYS_CRASH"]), "E_EMBEDDER", /died 2 times/);
    expect((await pool.embed(["after"])).length).toBe(1);
    await pool.close();
    // A second close resolves too (it once waited for close events that had already fired).
    await pool.close();
    await expectGllamError(pool.embed(["closed"]), "E_EMBEDDER", /closed/);
  });

  test("workers whose module cannot load answer each batch with its error, and are not replaced over and over", async () => {
    const template = await createEmbedderFromSpec(spec);
    const missing = { kind: "module" as const, path: join(dir, "missing-embedder.ts") };
    const pool = createPooledEmbedder({ ...template, spec: missing, embed: template.embed }, { workers: 2, chunkSize: 1 });
    await Bun.sleep(500);
    await expectGllamError(pool.embed(["one", "two", "three"]), "E_EMBEDDER", /cannot load embedder module/);
    expect(pool.restarts).toBe(0);
    pool.close();
  });

  test("a module that is missing or exports no factory is a clear error", async () => {
    await expectGllamError(createEmbedderFromSpec({ kind: "module", path: join(dir, "nope.ts") }), "E_EMBEDDER", /cannot load embedder module/);
  });
});
