import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createEmbedderFromSpec } from "../../src/embed/spec.ts";
import { localEmbedder, makeTempDir, openTempGllam } from "../helpers.ts";

const dir = makeTempDir();
const hash = await createEmbedderFromSpec({ kind: "module", path: join(import.meta.dir, "../fixtures/hash-embedder.ts") });

/** Seeded distractor chatter: everyday words, none of the planted fact's content words. */
function distractors(n: number): { sessionId: string; seq: number; speaker: string; content: string }[] {
  const words = "coffee weather train garden movie lunch office weekend phone email meeting music dinner book walk shop rain sun car bike".split(" ");
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: n }, (_, i) => ({
    sessionId: `d${Math.floor(i / 50)}`,
    seq: i % 50,
    speaker: i % 2 ? "Ann" : "Bob",
    content: `I think the ${words[Math.floor(next() * words.length)]} and the ${words[Math.floor(next() * words.length)]} were ${["fine", "great", "odd"][i % 3]} today.`,
  }));
}

describe("searchEpisodes", () => {
  test("finds a planted fact among 5,000 distractor turns, with its ranks and session", async () => {
    const gllam = await openTempGllam(dir, { embedder: hash });
    const planted = { sessionId: "p", seq: 3, speaker: "Ann", content: "My daughter's violin recital is at Riverside Hall on Friday.", occurredAt: Date.UTC(2024, 4, 3) };
    gllam.addEpisodes([...distractors(2500), planted, ...distractors(5000).slice(2500)]);
    const { hits, denseUsed } = await gllam.searchEpisodes("When is the violin recital?", { k: 5 });
    expect(denseUsed).toBe(false);
    expect(hits[0]).toMatchObject({ content: planted.content, sessionId: "p", seq: 3, speaker: "Ann", occurredAt: planted.occurredAt, bm25Rank: 1, denseRank: null });
    gllam.close();
  });

  test("hybrid: the bundled model's vectors rank a paraphrase that shares no word with the turn", async () => {
    const gllam = await openTempGllam(dir, { embedder: localEmbedder });
    gllam.addEpisodes([
      { sessionId: "s", seq: 0, content: "I adopted a puppy last week, a golden retriever." },
      { sessionId: "s", seq: 1, content: "The quarterly tax forms are due soon." },
      { sessionId: "s", seq: 2, content: "We repainted the kitchen cabinets blue." },
    ]);
    await gllam.processUnembeddedBatch(10);
    const { hits, denseUsed, denseIds } = await gllam.searchEpisodes("new dog", { k: 3 });
    expect(denseUsed).toBe(true);
    expect(hits[0]).toMatchObject({ content: "I adopted a puppy last week, a golden retriever.", bm25Rank: null, denseRank: 1 });
    // The model's candidates before fusion, nearest first (the router ranks them on their own).
    expect(denseIds[0]).toBe(hits[0]!.episodeId);
    gllam.close();
  });

  test("a reply is found by the question before it, and a named speaker's turns come first", async () => {
    const gllam = await openTempGllam(dir, { embedder: hash });
    gllam.addEpisodes([
      { sessionId: "s", seq: 0, speaker: "Bob", content: "Which instrument are you learning?" },
      { sessionId: "s", seq: 1, speaker: "Ann", content: "The cello, since March." },
      { sessionId: "t", seq: 0, speaker: "Bob", content: "I am learning to cook." },
      { sessionId: "t", seq: 1, speaker: "Ann", content: "Cooking is fun to learn." },
    ]);
    const { hits } = await gllam.searchEpisodes("What instrument is Ann learning?", { k: 4, tuning: { neighbourWeight: 0, denseWeight: 0 } });
    expect(hits.slice(0, 2).map((h) => h.content)).toContain("The cello, since March.");
    expect(hits[0]!.speaker).toBe("Ann");
    gllam.close();
  });

  test("time windows, as-of, entity filters and scopes", async () => {
    const gllam = await openTempGllam(dir, { embedder: hash });
    gllam.upsertNode({ id: "kayak", name: "kayak", type: "concept" });
    const may = Date.UTC(2024, 4, 1);
    const june = Date.UTC(2024, 5, 1);
    gllam.addEpisodes([
      { sessionId: "a", seq: 0, content: "Bought a kayak in May", occurredAt: may },
      { sessionId: "b", seq: 0, content: "Sold the canoe, kept the paddle, in June", occurredAt: june },
      { scope: "work", sessionId: "w", seq: 0, content: "Kayak trip with the team in May", occurredAt: may },
    ]);
    const contents = async (query: string, options: Parameters<typeof gllam.searchEpisodes>[1]) => (await gllam.searchEpisodes(query, options)).hits.map((h) => h.content);
    expect(await contents("kayak paddle", { window: { start: june } })).toEqual(["Sold the canoe, kept the paddle, in June"]);
    expect(await contents("kayak paddle", { asOf: may + 1 })).toEqual(["Bought a kayak in May"]);
    expect(await contents("kayak paddle", { nodeIds: ["kayak"] })).toEqual(["Bought a kayak in May"]);
    expect(await contents("kayak", { scope: "work" })).toEqual(["Kayak trip with the team in May"]);
    // Nothing from another scope, though the static tier always offers the nearest turns of this one.
    expect(await contents("team trip", {})).not.toContain("Kayak trip with the team in May");
    gllam.close();
  });

  test("queries of stop words only, punctuation or FTS syntax are harmless", async () => {
    const gllam = await openTempGllam(dir, { embedder: hash });
    gllam.addEpisodes([{ sessionId: "s", seq: 0, content: "What is it about?" }]);
    expect((await gllam.searchEpisodes("what is it")).hits.length).toBe(1);
    for (const query of ['"unbalanced', "NEAR(a b)", "a* OR -b", "{content}: x", "???"]) {
      expect(Array.isArray((await gllam.searchEpisodes(query)).hits)).toBe(true);
    }
    gllam.close();
  });
});
