import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadStaticEmbedder } from "../../src/embed/static/bundled-table.ts";
import { createEmbedderFromSpec } from "../../src/embed/spec.ts";
import { exactStaticEpisodes, knnStaticEpisodes } from "../../src/episodic/static-vectors.ts";
import { Gllam } from "../../src/gllam/gllam.ts";
import { ensureTestStaticTable, failingStaticEmbedder } from "../static-table.ts";
import { expectGllamError, makeTempDir, openTempGllam } from "../helpers.ts";

const dir = makeTempDir();
const hash = await createEmbedderFromSpec({ kind: "module", path: join(import.meta.dir, "../fixtures/hash-embedder.ts") });
const staticEmbedder = loadStaticEmbedder();
// Another table (one more word): another vector space.
const otherStatic = loadStaticEmbedder(await ensureTestStaticTable(["zebra"]));

const turns = (n: number, prefix = "turn") => Array.from({ length: n }, (_, i) => ({ sessionId: `s${i % 5}`, seq: i, speaker: i % 2 ? "Ann" : "Bob", content: `${prefix} ${i} about the weather and money` }));
const staticCount = (gllam: Gllam) => (gllam.db().query("SELECT count(*) AS n FROM episode_static_vectors").get() as { n: number }).n;

describe("the static tier", () => {
  test("ingest writes one static vector per new episode, the embedder's own, in the same transaction", async () => {
    const gllam = await openTempGllam(dir, { embedder: hash });
    const planted = { sessionId: "p", seq: 0, speaker: "Ann", content: "My sister moved to Denver for a nursing job." };
    expect(gllam.addEpisodes([...turns(40), planted]).inserted).toBe(41);
    expect(staticCount(gllam)).toBe(41);
    expect(gllam.addEpisodes(turns(40)).inserted).toBe(0);
    expect(staticCount(gllam)).toBe(41);
    expect(gllam.stats().staticModel).toBe(staticEmbedder.modelVersion);
    // The stored vector is the static embedding of "speaker: content", as int8 (same direction).
    const row = gllam.db().query("SELECT vec_to_json(v.embedding) AS json FROM episode_static_vectors v JOIN episodes e ON e.id = v.episode_id WHERE e.session_id = 'p'").get() as { json: string };
    const stored = Float32Array.from(JSON.parse(row.json) as number[]);
    const [expected] = staticEmbedder.embedSync([`Ann: ${planted.content}`]);
    const cosine = stored.reduce((s, x, i) => s + x * expected![i]!, 0) / Math.hypot(...stored);
    expect(cosine).toBeGreaterThan(0.9999);
    const { hits, staticUsed, denseUsed } = await gllam.searchEpisodes("sister Denver nursing", { k: 3 });
    expect({ staticUsed, denseUsed }).toEqual({ staticUsed: true, denseUsed: false });
    expect(hits[0]).toMatchObject({ content: planted.content, bm25Rank: 1, staticRank: 1, denseRank: null });
    gllam.close();
  });

  test("KNN in a scope without cells scans its vectors: vec0's brute force answer, in two scopes of one file", async () => {
    const gllam = await openTempGllam(makeTempDir(), { embedder: hash });
    const topics = ["rain on the roof", "a loan from the bank", "the ferry to Tangier", "tomatoes in the garden"];
    gllam.addEpisodes(Array.from({ length: 300 }, (_, i) => ({ sessionId: `s${i % 9}`, seq: i, speaker: i % 2 ? "Ann" : "Bob", content: `${topics[i % 4]} ${i % 7}`, scope: i % 3 ? "default" : "other" })));
    const db = gllam.db();
    for (const [text, scope, k] of [["rain", "default", 10], ["bank loan", "other", 25], ["garden", "default", 500]] as const) {
      const q = staticEmbedder.embedSync([text])[0]!;
      const exact = exactStaticEpisodes(db, q, k, scope);
      const scanned = knnStaticEpisodes(db, q, k, scope);
      expect(scanned.map((hit) => hit.distance)).toEqual(exact.map((hit) => hit.distance));
      // Equal distances may come in another order (the scan: newest first); the same episodes up to ties at the k-th.
      const last = exact.at(-1)!.distance;
      const before = (hits: typeof exact) => hits.filter((hit) => hit.distance < last).map((hit) => hit.episodeId).sort();
      expect(before(scanned)).toEqual(before(exact));
    }
    gllam.close();
  });

  test("the reader's scans keep up with the writer: episodes added and forgotten after a scan are seen by the next one", async () => {
    const gllam = await openTempGllam(makeTempDir(), { embedder: hash });
    gllam.addEpisodes(turns(200));
    const reader = gllam.dbRO();
    const q = staticEmbedder.embedSync(["weather money 7"])[0]!;
    const distances = (hits: { distance: number }[]) => hits.map((hit) => hit.distance);
    const first = knnStaticEpisodes(reader, q, 5, "default");
    expect(distances(first)).toEqual(distances(exactStaticEpisodes(reader, q, 5, "default")));
    // The query's own text arrives (the same chunk or a new one), and the nearest episode so far goes.
    gllam.addEpisodes([{ sessionId: "late", seq: 0, speaker: "Bob", content: "weather money 7" }]);
    gllam.forget({ episode: first[0]!.episodeId, scope: "default" });
    const second = knnStaticEpisodes(reader, q, 5, "default");
    expect(second.map((hit) => hit.episodeId)).not.toContain(first[0]!.episodeId);
    expect(distances(second)).toEqual(distances(exactStaticEpisodes(reader, q, 5, "default")));
    gllam.close();
  });

  test("a static embedder that fails takes the whole batch back with it", async () => {
    const gllam = await openTempGllam(dir, { embedder: hash, staticEmbedder: failingStaticEmbedder(staticEmbedder) });
    expect(() => gllam.addEpisodes(turns(10))).toThrow("boom");
    expect(gllam.stats().tables.episodes).toBe(0);
    await expectGllamError(() => gllam.addEpisodes([{ sessionId: "x", seq: 0, content: "" }]), "E_BAD_INPUT");
    gllam.close();
  });

  test("another static table: new episodes get none, search does without and says so, reembed rebuilds the tier", async () => {
    const path = join(dir, "static-drift.db");
    const before = await Gllam.open(path, { embedder: hash });
    before.addEpisodes(turns(30));
    before.close();

    const after = await Gllam.open(path, { embedder: hash, staticEmbedder: otherStatic });
    after.addEpisodes(turns(5, "later"));
    expect(staticCount(after)).toBe(30);
    const search = await after.searchEpisodes("weather money");
    expect({ staticUsed: search.staticUsed, staticState: search.staticState }).toEqual({ staticUsed: false, staticState: "drift" });
    expect((await after.recall("weather money")).warnings.join(" ")).toMatch(/static vectors come from another static table .*gllam reembed/);

    const progress: { tier: string; phase: string; done: number; total: number }[] = [];
    const report = await after.reembedAll({ onProgress: (p) => progress.push(p) });
    expect(report).toMatchObject({ staticReset: true, staticEpisodes: 35 });
    // Staging ends at the last episode; the swap, one long transaction, is announced before it runs.
    expect(progress.filter((p) => p.tier === "static").slice(-2)).toEqual([
      { tier: "static", phase: "episodes", done: 35, total: 35 },
      { tier: "static", phase: "swap", done: 0, total: 1 },
    ]);
    expect(after.stats().staticModel).toBe(otherStatic.modelVersion);
    expect((await after.searchEpisodes("weather money")).staticUsed).toBe(true);
    expect(await after.reembedAll()).toMatchObject({ staticReset: false, staticEpisodes: 0 });
    after.close();
  });

  test("episodes stored without the static tier get their vectors from reembed", async () => {
    const path = join(dir, "static-gaps.db");
    const without = await Gllam.open(path, { embedder: hash, staticEmbedder: null });
    without.addEpisodes(turns(12));
    expect(without.stats().tables.episode_static_vectors).toBeUndefined();
    without.close();
    const withStatic = await Gllam.open(path, { embedder: hash });
    withStatic.addEpisodes(turns(3, "new"));
    expect(await withStatic.reembedAll()).toMatchObject({ staticReset: false, staticEpisodes: 12 });
    expect(staticCount(withStatic)).toBe(15);
    withStatic.close();
  });

  test("static only: nodes and episodes in the static space, nothing left for a worker pool", async () => {
    const gllam = await openTempGllam(dir, { embedder: staticEmbedder, staticEmbedder });
    expect(gllam.tiers).toEqual({ model: undefined, static: staticEmbedder });
    gllam.upsertNode({ id: "denver", name: "Denver", type: "location" });
    await gllam.storeNodeEmbedding("denver");
    gllam.addEpisodes([{ sessionId: "s", seq: 0, content: "We drove to Denver in May." }]);
    expect(await gllam.waitForEmbeddings()).toBe(0);
    expect(gllam.stats().tables.episode_vectors).toBe(0);
    const result = await gllam.recall("Denver trip");
    expect(result).toMatchObject({ denseUsed: true, warnings: [] });
    expect(result.similar[0]!.nodeId).toBe("denver");
    expect(result.episodes[0]).toMatchObject({ staticRank: 1, denseRank: null });
    gllam.close();
  });
});
