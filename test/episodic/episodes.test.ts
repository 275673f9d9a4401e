import { describe, expect, test } from "bun:test";
import { expectGllamError, makeTempDir, openTempGllam } from "../helpers.ts";

const dir = makeTempDir();
const day = (d: number) => Date.UTC(2024, 0, d);

const turns = [
  { sessionId: "s1", seq: 0, speaker: "Ann", content: "I moved to Lisbon last spring.", occurredAt: day(1) },
  { sessionId: "s1", seq: 1, speaker: "Bob", content: "How do you like the trams?", occurredAt: day(1) },
  { sessionId: "s2", seq: 0, speaker: "Ann", content: "My sister visits in June.", occurredAt: day(10) },
];

describe("episodic store", () => {
  test("addEpisodes stores turns, their sessions and FTS rows in one go, and queues them for vectors", async () => {
    const gllam = await openTempGllam(dir);
    const result = gllam.addEpisodes(turns);
    expect(result).toMatchObject({ inserted: 3, duplicates: 0 });
    expect(gllam.db().query("SELECT count(*) AS n FROM episodes_fts WHERE episodes_fts MATCH 'trams'").get()).toEqual({ n: 1 });
    expect(gllam.countUnembedded()).toBe(3);
    expect(gllam.listSessions().map((s) => [s.id, s.episodes, s.firstAt])).toEqual([
      ["s1", 2, day(1)],
      ["s2", 1, day(10)],
    ]);
    gllam.close();
  });

  test("re-adding the same turns adds nothing; the same words at another position are a new turn", async () => {
    const gllam = await openTempGllam(dir);
    const first = gllam.addEpisodes(turns);
    const again = gllam.addEpisodes(turns);
    expect(again).toMatchObject({ inserted: 0, duplicates: 3 });
    expect(again.ids).toEqual(first.ids);
    const repeated = gllam.addEpisodes([{ ...turns[0]!, seq: 7 }]);
    expect(repeated.inserted).toBe(1);
    gllam.close();
  });

  test("a bad item anywhere in the batch writes nothing and names the item and field", async () => {
    const gllam = await openTempGllam(dir);
    await expectGllamError(() => gllam.addEpisodes([turns[0]!, { ...turns[1]!, content: "  " }], { where: "chat.jsonl" }), "E_BAD_INPUT", /chat\.jsonl\[1\]: content: must not be empty/);
    await expectGllamError(() => gllam.addEpisodes([{ ...turns[0]!, occurredAt: "not a date" }]), "E_BAD_INPUT", /occurredAt/);
    expect(gllam.getRecentEpisodes(10)).toEqual([]);
    gllam.close();
  });

  test.each([
    ["a time past a Date's range", { occurredAt: 1e20 }, /occurredAt: must be a valid date/],
    ["an impossible day", { occurredAt: "2023-02-30" }, /occurredAt: must be a valid date/],
    ["seq at 2^63", { seq: 2 ** 63 }, /seq: must be a whole number below 2\^53/],
    ["content over 1,000,000 characters", { content: "x".repeat(1_000_001) }, /content: must be at most 1,000,000 characters/],
    ["content of control characters only", { content: "\u0000 \u0001" }, /content: must not be empty/],
    ["metadata nested 100 deep", { metadata: JSON.parse(`${'{"a":'.repeat(100)}1${"}".repeat(100)}`) }, /metadata: must not nest deeper than 64 levels/],
  ])("addEpisodes refuses %s as ingest does, before writing (E_BAD_INPUT, not a SQLite error)", async (_, change, message) => {
    const gllam = await openTempGllam(dir);
    await expectGllamError(() => gllam.addEpisodes([turns[0]!, { ...turns[1]!, ...change }]), "E_BAD_INPUT", message);
    expect(gllam.getRecentEpisodes(10)).toEqual([]);
    gllam.close();
  });

  test("a fractional time is stored as whole milliseconds", async () => {
    const gllam = await openTempGllam(dir);
    const { ids } = gllam.addEpisodes([{ ...turns[0]!, occurredAt: 1714557600123.456 }]);
    expect(gllam.getRecentEpisodes(1)[0]).toMatchObject({ id: ids[0], occurredAt: 1714557600123 });
    gllam.close();
  });

  test("recent episodes, time windows and scopes", async () => {
    const gllam = await openTempGllam(dir);
    gllam.addEpisodes(turns);
    gllam.addEpisodes([{ scope: "other", sessionId: "s9", seq: 0, content: "Elsewhere entirely", occurredAt: day(5) }]);
    expect(gllam.getRecentEpisodes(2).map((e) => e.content)).toEqual(["My sister visits in June.", "How do you like the trams?"]);
    expect(gllam.getEpisodesInWindow(day(1), day(2)).map((e) => e.seq)).toEqual([0, 1]);
    expect(gllam.getEpisodesInWindow(day(2), day(11)).map((e) => e.content)).toEqual(["My sister visits in June."]);
    expect(gllam.getEpisodesInWindow(day(1), day(30), { scope: "other" }).map((e) => e.sessionId)).toEqual(["s9"]);
    await expectGllamError(() => gllam.getEpisodesInWindow(day(5), day(1)), "E_BAD_INPUT", /must be after its start/);
    gllam.close();
  });

  test("summaries are saved per session and read back newest first", async () => {
    const gllam = await openTempGllam(dir);
    gllam.saveEpisodicSummary({ sessionId: "s1", summary: "Ann moved to Lisbon.", startTime: day(1), endTime: day(2) });
    gllam.saveEpisodicSummary({ sessionId: "s1", summary: "Ann likes the trams.", metadata: { model: "x" } });
    const summaries = gllam.getEpisodicSummaries({ sessionId: "s1" });
    expect(summaries.map((s) => s.summary)).toEqual(["Ann likes the trams.", "Ann moved to Lisbon."]);
    expect(summaries[1]).toMatchObject({ startTime: day(1), endTime: day(2) });
    gllam.close();
  });

  test("the entity linker records which nodes an episode mentions, by whole words", async () => {
    const gllam = await openTempGllam(dir);
    gllam.upsertNode({ id: "lisbon", name: "Lisbon", type: "location", aliases: ["Lisboa"] });
    gllam.upsertNode({ id: "ann", name: "Ann", type: "person" });
    const { ids } = gllam.addEpisodes([
      { sessionId: "s", seq: 0, content: "Lisboa is lovely; ANN agrees." },
      { sessionId: "s", seq: 1, content: "Annual leave starts soon." },
    ]);
    const mentions = gllam.db().query("SELECT episode_id AS e, node_id AS n FROM episode_mentions ORDER BY e, n").all();
    expect(mentions).toEqual([
      { e: ids[0], n: "ann" },
      { e: ids[0], n: "lisbon" },
    ]);
    gllam.close();
  });

  test("relinking a scope after nodes were added links its earlier episodes (read row by row), only that scope's, and is safe to repeat", async () => {
    const gllam = await openTempGllam(dir);
    const { ids } = gllam.addEpisodes([
      { sessionId: "s", seq: 0, content: "Porto in the rain." },
      { sessionId: "s", seq: 1, content: "Nothing to see." },
      { sessionId: "s", seq: 2, content: "Back to porto next spring." },
      { scope: "other", sessionId: "x", seq: 0, content: "Porto again." },
    ]);
    gllam.upsertNode({ id: "porto", name: "Porto", type: "location" });
    const linked = () => gllam.db().query("SELECT episode_id AS e, node_id AS n FROM episode_mentions ORDER BY e").all();
    expect(linked()).toEqual([]);
    expect(gllam.relinkMentions()).toBe(2);
    expect(linked()).toEqual([
      { e: ids[0], n: "porto" },
      { e: ids[2], n: "porto" },
    ]);
    expect(gllam.relinkMentions()).toBe(0);
    expect(linked()).toHaveLength(2);
    gllam.close();
  });
});

describe("speakers of a scope", () => {
  test("kept by triggers as episodes come and go", async () => {
    const { listSpeakers } = await import("../../src/episodic/lookup.ts");
    const gllam = await openTempGllam(dir);
    gllam.addEpisodes([...turns, { scope: "other", sessionId: "x", seq: 0, speaker: "Cy", content: "hello" }]);
    expect(listSpeakers(gllam.dbRO(), "default").sort()).toEqual(["Ann", "Bob"]);
    gllam.db().run("DELETE FROM episodes WHERE speaker = 'Bob'");
    expect(listSpeakers(gllam.dbRO(), "default")).toEqual(["Ann"]);
    gllam.db().run("DELETE FROM episodes WHERE speaker = 'Ann' AND session_id = 's1'");
    expect(listSpeakers(gllam.dbRO(), "default")).toEqual(["Ann"]);
    expect(listSpeakers(gllam.dbRO(), "other")).toEqual(["Cy"]);
    gllam.close();
  });
});

describe("neighbours and speakers shared by a question's searches", () => {
  test("read once per episode: answers with what is known equal those read afresh", async () => {
    const { episodeNeighbours, episodeSpeakers, newEpisodeLookups } = await import("../../src/episodic/lookup.ts");
    const gllam = await openTempGllam(makeTempDir());
    const rows = gllam.addEpisodes(Array.from({ length: 12 }, (_, i) => ({ sessionId: `s${i % 2}`, seq: Math.floor(i / 2), speaker: i % 4 < 2 ? "Ann" : "Bob", content: `turn ${i}` })));
    const ids = rows.ids;
    const db = gllam.dbRO();
    const filter = { scope: "default" };
    const lookups = newEpisodeLookups();
    for (const asked of [[ids[0]!, ids[2]!], [ids[2]!, ids[4]!, ids[11]!], ids, [ids[4]!, ids[4]!]]) {
      expect(episodeNeighbours(db, asked, filter, lookups.neighbours)).toEqual(episodeNeighbours(db, asked, filter));
      expect(episodeSpeakers(db, asked, lookups.speakers)).toEqual(episodeSpeakers(db, asked));
    }
    // Every episode asked about is known, those without a neighbour too (s0's first turn has only the next).
    expect([...lookups.neighbours.keys()].sort((a, b) => a - b)).toEqual(ids);
    expect(lookups.neighbours.get(ids[0]!)).toEqual([ids[2]!]);
    expect(lookups.speakers.get(ids[11]!)).toBe("Bob");
    // What is known is not read again: a changed row shows only when asked afresh.
    gllam.db().run("UPDATE episodes SET speaker = 'Cy' WHERE id = ?", [ids[11]!]);
    expect(episodeSpeakers(db, [ids[11]!], lookups.speakers).get(ids[11]!)).toBe("Bob");
    expect(episodeSpeakers(db, [ids[11]!]).get(ids[11]!)).toBe("Cy");
    gllam.close();
  });
});
