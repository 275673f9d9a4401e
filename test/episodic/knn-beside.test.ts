import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadStaticEmbedder } from "../../src/embed/static/bundled-table.ts";
import { createEmbedderFromSpec } from "../../src/embed/spec.ts";
import { buildScopeCells } from "../../src/episodic/episode-cells.ts";
import { knnBesideOf, postStaticKnn, startKnnBeside } from "../../src/episodic/knn-beside.ts";
import { knnStaticEpisodes } from "../../src/episodic/static-vectors.ts";
import { Gllam } from "../../src/gllam/gllam.ts";
import { makeTempDir, REPO_ROOT } from "../helpers.ts";

const hash = await createEmbedderFromSpec({ kind: "module", path: join(import.meta.dir, "../fixtures/hash-embedder.ts") });
const staticEmbedder = loadStaticEmbedder();
const TOPICS = ["weather rain umbrella", "money bank loan", "ferry tangier noon", "guitar concert band", "garden tomatoes soil", "hiking lake trail"];
const turns = (n: number, from = 0) =>
  Array.from({ length: n }, (_, j) => ({ sessionId: `s${(from + j) % 7}`, seq: from + j, speaker: "Ann", content: `turn ${from + j}: ${TOPICS[(from + j) % TOPICS.length]} ${from + j}` }));
const QUERIES = ["a loan from the bank", "turn 620: rain", "guitar concert 633", "tomatoes in the garden soil", "noon ferry to tangier"];

/** A file whose default scope has static cells (built at once, as a scope past the threshold gets them), and a scope without. */
async function fileWithCells(): Promise<string> {
  const path = join(makeTempDir(), "cells.db");
  const gllam = await Gllam.open(path, { embedder: hash, staticEmbedder });
  gllam.addEpisodes(turns(600));
  gllam.store.transaction(() => buildScopeCells(gllam.db(), "static", "default", staticEmbedder.dims));
  gllam.addEpisodes(turns(40, 600));
  gllam.addEpisodes(turns(30).map((turn) => ({ ...turn, scope: "small" })));
  gllam.close();
  return path;
}
const path = await fileWithCells();
const vectorOf = (text: string) => staticEmbedder.embedSync([text])[0]!;

describe("the static KNN on a worker beside the calling thread", () => {
  test("the worker's neighbours are the calling thread's: same ids, same distances, same order", async () => {
    const gllam = await Gllam.open(path, { readOnly: true, embedder: hash, staticEmbedder });
    try {
      const beside = knnBesideOf(gllam.store)!;
      expect(await beside.ready).toBe(true);
      for (const text of QUERIES) {
        for (const k of [1, 10, 100, 700]) {
          const here = knnStaticEpisodes(gllam.dbRO(), vectorOf(text), k, "default");
          expect(here.length).toBeGreaterThan(0);
          expect(await beside.knn(vectorOf(text), k, "default")).toEqual(here);
        }
      }
      expect([beside.answered, beside.failed]).toEqual([QUERIES.length * 4, 0]);
    } finally {
      gllam.close();
    }
  });

  test("a search finds the same hits with the worker as without; a scope without cells, and the first search, stay on the calling thread", async () => {
    const gllam = await Gllam.open(path, { embedder: hash, staticEmbedder });
    try {
      // Started by the first need; that search runs its KNN here.
      const first = await gllam.searchEpisodes(QUERIES[0]!, { k: 20 });
      const beside = knnBesideOf(gllam.store)!;
      expect(await beside.ready).toBe(true);
      expect(beside.answered).toBe(0);
      expect(await gllam.searchEpisodes(QUERIES[0]!, { k: 20 })).toEqual({ ...first, embedMs: expect.any(Number), searchMs: expect.any(Number) });
      expect(beside.answered).toBe(1);
      for (const text of QUERIES.slice(1)) {
        const viaWorker = await gllam.searchEpisodes(text, { k: 20 });
        const staticIds = knnStaticEpisodes(gllam.dbRO(), vectorOf(text), 100, "default").map((hit) => hit.episodeId);
        expect(viaWorker.staticIds).toEqual(staticIds);
        expect(viaWorker.hits.length).toBe(20);
      }
      expect(beside.answered).toBe(QUERIES.length);
      expect(postStaticKnn(gllam.store, vectorOf("rain"), 10, "small")).toBeUndefined();
      expect((await gllam.searchEpisodes("rain", { scope: "small" })).staticIds.length).toBe(30);
      expect(beside.answered).toBe(QUERIES.length);
    } finally {
      gllam.close();
    }
  });

  test("a database in memory has no worker: its KNN runs on the calling thread", async () => {
    const gllam = await Gllam.open(":memory:", { embedder: hash, staticEmbedder });
    try {
      gllam.addEpisodes(turns(200));
      gllam.store.transaction(() => buildScopeCells(gllam.db(), "static", "default", staticEmbedder.dims));
      expect(knnBesideOf(gllam.store)).toBeUndefined();
      expect(postStaticKnn(gllam.store, vectorOf("rain"), 10, "default")).toBeUndefined();
      const result = await gllam.searchEpisodes("bank loan");
      expect(result.staticIds).toEqual(knnStaticEpisodes(gllam.dbRO(), vectorOf("bank loan"), 100, "default").map((hit) => hit.episodeId));
    } finally {
      gllam.close();
    }
  });

  test("a worker that cannot open the file is never asked; a job that fails resolves undefined (the caller's own KNN answers)", async () => {
    const missing = startKnnBeside(join(makeTempDir(), "missing.db"))!;
    expect(await missing.ready).toBe(false);
    expect(missing.knn(vectorOf("rain"), 10, "default")).toBeUndefined();
    missing.close();

    const beside = startKnnBeside(path)!;
    try {
      expect(await beside.ready).toBe(true);
      // No dimensions: the worker's KNN throws.
      expect(await beside.knn(new Float32Array(0), 10, "default")).toBeUndefined();
      expect([beside.answered, beside.failed]).toEqual([0, 1]);
      expect(await beside.knn(vectorOf("rain"), 5, "default")).toHaveLength(5);
    } finally {
      beside.close();
    }
    // Closed: nothing is posted any more.
    expect(beside.knn(vectorOf("rain"), 5, "default")).toBeUndefined();
  });

  test("a process opening and closing the file many times, or leaving an idle worker open, ends by itself; the last close leaves nothing beside the file", () => {
    const script = `
      import { Gllam } from "${join(REPO_ROOT, "src/gllam/gllam.ts")}";
      import { knnBesideOf } from "${join(REPO_ROOT, "src/episodic/knn-beside.ts")}";
      import { existsSync } from "node:fs";
      import { loadStaticEmbedder } from "${join(REPO_ROOT, "src/embed/static/bundled-table.ts")}";
      const staticEmbedder = loadStaticEmbedder();
            const open = () => Gllam.open(process.argv[1], { readOnly: true, embedder: staticEmbedder, staticEmbedder });
      for (let i = 0; i < 8; i++) {
        const gllam = await open();
        await gllam.searchEpisodes("a loan from the bank");
        if (i % 2) await knnBesideOf(gllam.store).ready;
        await gllam.searchEpisodes("guitar concert");
        gllam.close();
      }
      console.log(["-wal", "-shm"].filter((suffix) => existsSync(process.argv[1] + suffix)).join(" ") || "clean");
      const idle = await open();
      await idle.searchEpisodes("rain");
      await knnBesideOf(idle.store).ready;
      const { staticIds } = await idle.searchEpisodes("rain");
      console.log(knnBesideOf(idle.store).answered, staticIds.length > 0);
    `;
    const proc = Bun.spawnSync(["bun", "-e", script, path], { env: { ...process.env }, stdout: "pipe", stderr: "pipe", timeout: 30_000 });
    expect(proc.stderr.toString()).toBe("");
    expect(proc.exitCode).toBe(0);
    expect(proc.stdout.toString().trim().split("\n")).toEqual(["clean", "1 true"]);
  });
});
