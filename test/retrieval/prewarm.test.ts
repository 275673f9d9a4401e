import { describe, expect, test } from "bun:test";
import { buildScopeCells } from "../../src/episodic/episode-cells.ts";
import { Gllam } from "../../src/gllam/gllam.ts";
import { takeInTurn, WARMUP_RECALLS } from "../../src/retrieval/prewarm.ts";
import { fileWithCells, hash, staticEmbedder } from "../fixtures/cells-file.ts";
import { expectGllamError } from "../helpers.ts";

const open = (path: string, options: { knnCacheMiB?: number; readOnly?: boolean } = {}) => Gllam.open(path, { embedder: hash, staticEmbedder, ...options });
/** Commits to the file by any connection since the observer last looked move its data_version. */
const dataVersion = (observer: Gllam) => observer.dbRO().query<{ data_version: number }, []>("PRAGMA data_version").get()!.data_version;

describe("prewarm", () => {
  test("keeps the scopes' cells, then asks the warm-up recalls, and writes nothing", async () => {
    const path = await fileWithCells();
    const gllam = await open(path);
    const observer = await open(path, { readOnly: true });
    try {
      const chunks = observer.dbRO().query<{ n: number }, []>("SELECT count(*) AS n FROM episode_static_cells_chunks WHERE partition00 = 'default'").get()!.n;
      const before = dataVersion(observer);
      const report = await gllam.prewarm();
      expect(report.cells).toMatchObject({ scopes: ["default"], chunks, full: false });
      expect(report.recalls).toBe(WARMUP_RECALLS);
      expect(report.seconds).toBeGreaterThanOrEqual(report.cells!.seconds);
      expect(report.stopped).toBe(false);
      expect(dataVersion(observer)).toBe(before);
      // As many as asked, up to the turns there are to ask (640 turns, one in 16 of the latest).
      expect((await gllam.prewarm({ recalls: 3 })).recalls).toBe(3);
      expect((await gllam.prewarm({ recalls: 0 })).recalls).toBe(0);
      expect((await gllam.prewarm({ recalls: 100 })).recalls).toBe(40);
      for (const recalls of [-1, 1.5, 1001]) await expectGllamError(gllam.prewarm({ recalls }), "E_BAD_INPUT", /recalls must be an integer in 0\.\.1000/);
    } finally {
      observer.close();
      gllam.close();
    }
  });

  // Closed at a point the test sets, not after a sleep: a warm-up of this file can end within any wait.
  test.each([
    ["while the cells are kept", 0],
    ["inside a warm-up recall (its query's embedding)", 3],
  ])("an engine closed %s ends the warm-up quietly", async (_, closeAtEmbedding) => {
    const path = await fileWithCells();
    let embeddings = 0;
    let gllam: Gllam | undefined;
    const closing = {
      ...staticEmbedder,
      embedSync: (texts: string[]) => {
        if (++embeddings === closeAtEmbedding) gllam!.close();
        return staticEmbedder.embedSync(texts);
      },
    };
    gllam = await Gllam.open(path, { embedder: hash, staticEmbedder: closing });
    const warming = gllam.prewarm({ recalls: 1000 });
    if (closeAtEmbedding === 0) gllam.close();
    const report = await warming;
    expect(report.stopped).toBe(true);
    expect(report.recalls).toBeLessThan(closeAtEmbedding === 0 ? 1 : closeAtEmbedding);
  });

  test("every scope with cells gets its warm-up recalls, with the cache off too; a memory without cells has nothing to warm", async () => {
    const path = await fileWithCells();
    const writer = await open(path);
    // "small" has the latest turn: its cells come first.
    writer.addEpisodes([{ scope: "small", sessionId: "late", seq: 0, content: "a turn about the lake trail", occurredAt: Date.now() + 86_400_000 }]);
    writer.store.transaction(() => buildScopeCells(writer.db(), "static", "small", staticEmbedder.dims));
    writer.close();
    const on = await open(path);
    try {
      expect((await on.prewarm({ recalls: 0 })).cells!.scopes).toEqual(["small", "default"]);
    } finally {
      on.close();
    }
    const off = await open(path, { knnCacheMiB: 0 });
    try {
      // "small" has 31 turns: the 1st and the 17th of its latest are asked, the rest go to "default".
      expect(await off.prewarm({ recalls: 5 })).toMatchObject({ cells: { scopes: [], chunks: 0 }, recalls: 5 });
      expect((await off.prewarm({ recalls: 50 })).recalls).toBe(27);
    } finally {
      off.close();
    }
    const memory = await open(":memory:");
    try {
      memory.addEpisodes([{ sessionId: "s", seq: 0, content: "a turn about the bank" }]);
      expect(await memory.prewarm()).toMatchObject({ cells: { scopes: [], chunks: 0 }, recalls: 0 });
    } finally {
      memory.close();
    }
  });
});

test.each([
  ["in turn", [["a1", "a2", "a3"], ["b1", "b2"]], 4, ["a1", "b1", "a2", "b2"]],
  ["past a short list", [["a1", "a2", "a3"], ["b1"]], 10, ["a1", "b1", "a2", "a3"]],
  ["a small count reaches every list", [["a1", "a2"], ["b1"], ["c1"]], 3, ["a1", "b1", "c1"]],
  ["none", [["a1"]], 0, []],
  ["no lists", [], 5, []],
  ["empty lists", [[], ["b1"]], 2, ["b1"]],
])("takeInTurn: %s", (_, lists, count, expected) => expect(takeInTurn(lists as string[][], count as number)).toEqual(expected as string[]));
