import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { toInt8Vector } from "../../src/embed/static/static-embedder.ts";
import { buildScopeCells, probedStaticCells } from "../../src/episodic/episode-cells.ts";
import { mergeNearest, scanInt8Partitions } from "../../src/episodic/int8-scan.ts";
import { knnBesideOf, prewarmStaticCells, shareStaticKnn, startKnnBeside, type KnnBeside } from "../../src/episodic/knn-beside.ts";
import { knnStaticEpisodes } from "../../src/episodic/static-vectors.ts";
import { Gllam } from "../../src/gllam/gllam.ts";
import { fileWithCells, hash, staticEmbedder, turns } from "../fixtures/cells-file.ts";
import { makeTempDir, REPO_ROOT } from "../helpers.ts";
import { call, startServe } from "../server/http/serve-process.ts";

const QUERIES = ["a loan from the bank", "turn 620: rain", "guitar concert 633", "tomatoes in the garden soil", "noon ferry to tangier"];

const path = await fileWithCells();
const vectorOf = (text: string) => staticEmbedder.embedSync([text])[0]!;
/** A shared counter starting at `from` (the cells before it taken by someone else). */
const counterAt = (from = 0) => {
  const next = new Int32Array(new SharedArrayBuffer(4));
  next[0] = from;
  return next;
};
/** The worker's scan of the query's probed cells from `from` on. */
const scanOnWorker = (gllam: Gllam, beside: KnnBeside, text: string, k: number, from = 0) => {
  const { table, partitions } = probedStaticCells(gllam.dbRO(), vectorOf(text), "default")!;
  return beside.scan(table, partitions, toInt8Vector(vectorOf(text)), k, counterAt(from));
};

describe("the static KNN on a worker beside the calling thread", () => {
  test("the worker's neighbours are the calling thread's (same ids, distances, order), whole or split between the two threads", async () => {
    const gllam = await Gllam.open(path, { readOnly: true, embedder: hash, staticEmbedder });
    try {
      const beside = knnBesideOf(gllam.store)!;
      expect(await beside.ready).toBe(true);
      const db = gllam.dbRO();
      for (const text of QUERIES) {
        const { table, partitions } = probedStaticCells(db, vectorOf(text), "default")!;
        expect(partitions.length).toBe(12);
        const query = toInt8Vector(vectorOf(text));
        for (const k of [1, 10, 100, 700]) {
          const here = knnStaticEpisodes(db, vectorOf(text), k, "default");
          expect(here.length).toBeGreaterThan(0);
          expect(await scanOnWorker(gllam, beside, text, k)).toEqual(here);
          // The first five cells taken here, the rest by the worker; and every other cell each.
          const half = await scanOnWorker(gllam, beside, text, k, 5);
          expect(mergeNearest([scanInt8Partitions(db, table, partitions.slice(0, 5), query, k), half!], k)).toEqual(here);
          let odd = -1;
          let even = -2;
          const split = [() => (odd += 2), () => (even += 2)].map((claim) => scanInt8Partitions(db, table, partitions, query, k, claim));
          expect(mergeNearest(split, k)).toEqual(here);
          // Shared as recall shares it: whoever takes which cell.
          expect(await shareStaticKnn(gllam.store, vectorOf(text), k, "default")!.finish()).toEqual(here);
        }
      }
      expect(beside.failed).toBe(0);
    } finally {
      gllam.close();
    }
  });

  test("a search finds the same hits with the worker as without; a scope without cells, the first search and a closed worker stay on the calling thread", async () => {
    const gllam = await Gllam.open(path, { embedder: hash, staticEmbedder });
    try {
      // Started by the first need; that search runs its KNN here.
      const alone = await Promise.all(QUERIES.map((text) => gllam.searchEpisodes(text, { k: 20 })));
      // Ready is seen without the event loop running (a loop of recalls may never yield to it).
      let early: ReturnType<typeof shareStaticKnn>;
      for (let i = 0; i < 500 && !early; i++) {
        Bun.sleepSync(20);
        early = shareStaticKnn(gllam.store, vectorOf(QUERIES[0]!), 100, "default");
      }
      expect(await early!.finish()).toEqual(knnStaticEpisodes(gllam.dbRO(), vectorOf(QUERIES[0]!), 100, "default"));
      const beside = knnBesideOf(gllam.store)!;
      expect(await beside.ready).toBe(true);
      for (const [i, text] of QUERIES.entries()) {
        expect(await shareStaticKnn(gllam.store, vectorOf(text), 100, "default")!.finish()).toEqual(knnStaticEpisodes(gllam.dbRO(), vectorOf(text), 100, "default"));
        const shared = await gllam.searchEpisodes(text, { k: 20 });
        expect(shared).toEqual({ ...alone[i]!, embedMs: expect.any(Number), searchMs: expect.any(Number) });
        expect(shared.staticIds).toEqual(knnStaticEpisodes(gllam.dbRO(), vectorOf(text), 100, "default").map((hit) => hit.episodeId));
      }
      expect(shareStaticKnn(gllam.store, vectorOf("rain"), 10, "small")).toBeUndefined();
      expect((await gllam.searchEpisodes("rain", { scope: "small" })).staticIds.length).toBe(30);
      beside.close();
      expect(shareStaticKnn(gllam.store, vectorOf(QUERIES[0]!), 100, "default")).toBeUndefined();
      expect(await gllam.searchEpisodes(QUERIES[0]!, { k: 20 })).toEqual({ ...alone[0]!, embedMs: expect.any(Number), searchMs: expect.any(Number) });
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
      expect(shareStaticKnn(gllam.store, vectorOf("rain"), 10, "default")).toBeUndefined();
      const result = await gllam.searchEpisodes("bank loan");
      expect(result.staticIds).toEqual(knnStaticEpisodes(gllam.dbRO(), vectorOf("bank loan"), 100, "default").map((hit) => hit.episodeId));
    } finally {
      gllam.close();
    }
  });

  test("a worker keeping the cells' chunks answers from them once it has read them, sees another connection's writes, and keeps none when told", async () => {
    const copy = await fileWithCells();
    const writer = await Gllam.open(copy, { embedder: hash, staticEmbedder });
    const none = await Gllam.open(copy, { readOnly: true, embedder: hash, staticEmbedder, knnCacheMiB: 0 });
    try {
      const besides = [knnBesideOf(writer.store)!, knnBesideOf(none.store)!];
      for (const beside of besides) expect(await beside.ready).toBe(true);
      const [keeping, plain] = besides as [KnnBeside, KnnBeside];
      const here = (text: string, k: number) => knnStaticEpisodes(writer.dbRO(), vectorOf(text), k, "default");
      for (let pass = 0; pass < 2; pass++) {
        for (const text of QUERIES) {
          expect(await scanOnWorker(writer, keeping, text, 50)).toEqual(here(text, 50));
          expect(await scanOnWorker(none, plain, text, 50)).toEqual(here(text, 50));
        }
        // The first pass read each probed chunk; the second found them all kept.
        expect(keeping.keepsChunks).toBe(pass === 1);
        expect(plain.keepsChunks).toBe(false);
      }
      // Turns saying what the first query says: their vectors are its own, so they come first.
      writer.addEpisodes(turns(3, 700).map((turn) => ({ ...turn, content: QUERIES[0]! })));
      const fresh = (await scanOnWorker(writer, keeping, QUERIES[0]!, 50))!;
      expect(fresh).toEqual(here(QUERIES[0]!, 50));
      const added = writer.dbRO().query<{ id: number }, [string]>("SELECT id FROM episodes WHERE content = ? ORDER BY id").all(QUERIES[0]!).map((row) => row.id);
      expect(added).toHaveLength(3);
      expect(fresh.slice(0, 3).map((hit) => hit.episodeId).sort((a, b) => a - b)).toEqual(added);
      // The worker keeps the changed chunk it read once it is idle after answering (a scan posted
      // at once may find it not kept yet): it is given that moment.
      await Bun.sleep(50);
      expect(await scanOnWorker(writer, keeping, QUERIES[0]!, 50)).toEqual(fresh);
      expect(keeping.keepsChunks).toBe(true);
      // Forgetting one of them moves the file's removal token: the worker reads every chunk row again.
      writer.forget({ episode: added[1]! });
      const after = (await scanOnWorker(writer, keeping, QUERIES[0]!, 50))!;
      expect(after).toEqual(here(QUERIES[0]!, 50));
      expect(after.map((hit) => hit.episodeId)).not.toContain(added[1]);
      // As recall shares it, the calling thread leaving the cells to a worker that keeps them.
      for (const text of QUERIES) expect(await shareStaticKnn(writer.store, vectorOf(text), 100, "default")!.finish()).toEqual(here(text, 100));
      expect(keeping.failed + plain.failed).toBe(0);
    } finally {
      none.close();
      writer.close();
    }
  });

  test("a prewarm keeps every static cell of the scopes with cells while the worker is idle: the scans after it find them kept; a scan posted meanwhile comes first; a full room stops it", async () => {
    const copy = await fileWithCells();
    const open = (knnCacheMiB?: number) => Gllam.open(copy, { readOnly: true, embedder: hash, staticEmbedder, knnCacheMiB });
    const gllam = await open();
    const small = await open(1);
    const none = await open(0);
    try {
      // Every chunk of the default scope's cells (the small scope has none).
      const chunks = gllam.dbRO().query<{ n: number }, []>("SELECT count(*) AS n FROM episode_static_cells_chunks WHERE partition00 = 'default'").get()!.n;
      expect(chunks).toBeGreaterThan(12);
      const beside = knnBesideOf(gllam.store)!;
      expect(await beside.ready).toBe(true);
      // A scan posted right after the prewarm is answered while the prewarm has more to keep; the prewarm goes on after it.
      const answered: string[] = [];
      const prewarm = prewarmStaticCells(gllam.store).then((report) => (answered.push("prewarm"), report));
      await Bun.sleep(0);
      const first = await scanOnWorker(gllam, beside, QUERIES[1]!, 50)!.then((hits) => (answered.push("scan"), hits));
      expect(first).toEqual(knnStaticEpisodes(gllam.dbRO(), vectorOf(QUERIES[1]!), 50, "default"));
      const report = (await prewarm)!;
      expect(answered).toEqual(["scan", "prewarm"]);
      expect(report).toMatchObject({ scopes: ["default"], chunks, full: false });
      expect(report.bytes).toBeGreaterThanOrEqual(chunks * 512 * staticEmbedder.dims);
      expect(beside.keepsChunks).toBe(true);
      for (const text of QUERIES) {
        expect(await scanOnWorker(gllam, beside, text, 50)).toEqual(knnStaticEpisodes(gllam.dbRO(), vectorOf(text), 50, "default"));
        expect(beside.keepsChunks).toBe(true);
      }
      // Asked again: nothing left to keep.
      expect(await prewarmStaticCells(gllam.store)).toMatchObject({ chunks, bytes: report.bytes, full: false });
      // 1 MiB holds a few chunks of 512 int8[256] vectors (128 KiB each, with their norms).
      const full = (await prewarmStaticCells(small.store))!;
      expect(full).toMatchObject({ scopes: ["default"], full: true });
      expect(full.chunks).toBe(Math.floor(2 ** 20 / (512 * (staticEmbedder.dims + 8))));
      expect(await prewarmStaticCells(none.store)).toEqual({ scopes: [], chunks: 0, bytes: 0, full: false, seconds: 0 });
      expect(knnBesideOf(gllam.store)!.failed).toBe(0);
    } finally {
      for (const engine of [none, small, gllam]) engine.close();
    }
    // In memory there is nothing to keep ahead; a worker that cannot open its file keeps nothing.
    const memory = await Gllam.open(":memory:", { embedder: hash, staticEmbedder });
    try {
      memory.addEpisodes(turns(200));
      memory.store.transaction(() => buildScopeCells(memory.db(), "static", "default", staticEmbedder.dims));
      expect(await prewarmStaticCells(memory.store)).toEqual({ scopes: [], chunks: 0, bytes: 0, full: false, seconds: 0 });
    } finally {
      memory.close();
    }
    const missing = startKnnBeside(join(makeTempDir(), "missing.db"), 2 ** 20)!;
    expect(await missing.prewarm("episode_static_cells", 256, [["default", 0]])).toBeUndefined();
    missing.close();
  });

  test("a worker that cannot open the file is never asked; a job that fails resolves undefined (the caller's own KNN answers)", async () => {
    const query = toInt8Vector(vectorOf("rain"));
    const missing = startKnnBeside(join(makeTempDir(), "missing.db"))!;
    expect(await missing.ready).toBe(false);
    expect(missing.scan("episode_static_cells", [["default", 0]], query, 10, counterAt())).toBeUndefined();
    missing.close();

    const beside = startKnnBeside(path)!;
    try {
      expect(await beside.ready).toBe(true);
      expect(await beside.scan("no_such_cells", [["default", 0]], query, 10, counterAt())).toBeUndefined();
      expect([beside.answered, beside.failed]).toEqual([0, 1]);
      expect(await beside.scan("episode_static_cells", [["default", 0]], query, 10, counterAt())).toBeArray();
      expect([beside.answered, beside.failed]).toEqual([1, 1]);
    } finally {
      beside.close();
    }
    // Closed: nothing is posted any more.
    expect(beside.scan("episode_static_cells", [["default", 0]], query, 10, counterAt())).toBeUndefined();
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
      console.log(knnBesideOf(idle.store).failed, staticIds.length > 0);
    `;
    const proc = Bun.spawnSync(["bun", "-e", script, path], { env: { ...process.env }, stdout: "pipe", stderr: "pipe", timeout: 30_000 });
    expect(proc.stderr.toString()).toBe("");
    expect(proc.exitCode).toBe(0);
    expect(proc.stdout.toString().trim().split("\n")).toEqual(["clean", "0 true"]);
  });

  test("the compiled binary's server runs the worker (a third handle on the file), keeps the cells ahead, and answers as the calling thread alone; it closes on shutdown", async () => {
    const served = await startServe(["--db", path, "--workers", "0"]);
    try {
      const reader = await Gllam.open(path, { readOnly: true, embedder: hash, staticEmbedder });
      const chunks = reader.dbRO().query<{ n: number }, []>("SELECT count(*) AS n FROM episode_static_cells_chunks WHERE partition00 = 'default'").get()!.n;
      reader.close();
      for (let i = 0; i < 300 && !/kept \d+ MB/.test(served.stderr()); i++) await Bun.sleep(50);
      expect((await call(served, "GET", "/health")).json).toEqual({ status: "ok", warmingUp: false });
      expect(served.stderr()).toMatch(new RegExp(`gllam: kept \\d+ MB of vector cells \\(${chunks} chunks, 1 scope\\) and asked 32 warm-up recalls in [\\d.]+ s\n`));
      const gllam = await Gllam.open(path, { readOnly: true, embedder: hash, staticEmbedder });
      const expected = (await gllam.searchEpisodes(QUERIES[0]!, { k: 10 })).hits.map((hit) => hit.episodeId);
      gllam.close();
      for (let i = 0; i < 3; i++) {
        const { status, json } = await call(served, "POST", "/v1/recall", { query: QUERIES[0] });
        expect(status).toBe(200);
        expect(json.episodes.map((episode: { episodeId: number }) => episode.episodeId)).toEqual(expected);
        await Bun.sleep(200);
      }
      // Where /proc tells: the writer's, the reader's and the worker's handles.
      const fds = `/proc/${served.pid}/fd`;
      if (existsSync(fds)) {
        const handles = readdirSync(fds).filter((fd) => {
          try {
            return readlinkSync(`${fds}/${fd}`) === path;
          } catch {
            return false;
          }
        });
        expect(handles.length).toBe(3);
      }
    } finally {
      expect(await served.stop()).toBe(0);
    }
    for (const suffix of ["-wal", "-shm"]) expect(existsSync(path + suffix)).toBe(false);
    // --no-prewarm: the cells are kept only as recalls read them.
    const plain = await startServe(["--db", path, "--workers", "0", "--no-prewarm"]);
    try {
      expect((await call(plain, "POST", "/v1/recall", { query: QUERIES[0] })).status).toBe(200);
      await Bun.sleep(500);
      expect(plain.stderr()).not.toContain("vector cells");
    } finally {
      expect(await plain.stop()).toBe(0);
    }
    // Stopped at once, most likely while it warms up: it stops cleanly, and reports no failure of a warm-up it cut short.
    const stopped = await startServe(["--db", path, "--workers", "0"]);
    expect(await stopped.stop()).toBe(0);
    expect(stopped.stderr()).not.toMatch(/warm-up failed|could not be kept/);
  });
});
