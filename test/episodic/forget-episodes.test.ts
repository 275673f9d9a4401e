import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createEmbedderFromSpec } from "../../src/embed/spec.ts";
import type { Gllam } from "../../src/gllam/gllam.ts";
import { expectGllamError, makeTempDir, openTempGllam, runGllam } from "../helpers.ts";

const dir = makeTempDir();
const hash = await createEmbedderFromSpec({ kind: "module", path: join(import.meta.dir, "../fixtures/hash-embedder.ts") });

const count = (gllam: Gllam, sql: string, ...params: (string | number)[]) => (gllam.dbRO().query(sql).get(...params) as { n: number }).n;
const fts = (gllam: Gllam, term: string) => count(gllam, "SELECT count(*) AS n FROM episodes_fts WHERE episodes_fts MATCH ?", `"${term}"`);

/** Every row that refers to an episode, table by table. */
function rowsOf(gllam: Gllam, id: number): Record<string, number> {
  return Object.fromEntries(
    [
      ["episodes", "SELECT count(*) AS n FROM episodes WHERE id = ?"],
      ["episodes_fts", "SELECT count(*) AS n FROM episodes_fts WHERE rowid = ?"],
      ["episode_vectors", "SELECT count(*) AS n FROM episode_vectors WHERE episode_id = ?"],
      ["episode_static_vectors", "SELECT count(*) AS n FROM episode_static_vectors WHERE episode_id = ?"],
      ["episode_vector_queue", "SELECT count(*) AS n FROM episode_vector_queue WHERE episode_id = ?"],
      ["episode_mentions", "SELECT count(*) AS n FROM episode_mentions WHERE episode_id = ?"],
      ["episode_vector_staging", "SELECT count(*) AS n FROM episode_vector_staging WHERE episode_id = ?"],
    ].map(([table, sql]) => [table, count(gllam, sql!, id)]),
  );
}

const chat = [
  { sessionId: "locker", seq: 0, speaker: "Mira", content: "the locker code is 4471, keep it safe" },
  { sessionId: "locker", seq: 1, speaker: "Sam", content: "thanks, noted in my phone" },
  { sessionId: "locker", seq: 2, speaker: "Sam", content: "see you at the gym" },
];

describe("forgetting episodes", () => {
  test("forgotten episodes with the highest ids do not break the next ingest in any scope (static vectors go too)", async () => {
    const gllam = await openTempGllam(dir, { embedder: hash });
    const source = gllam.upsertSource({ docType: "slack", handle: "mira", scope: "a" }).source.id;
    gllam.addEpisodes([{ sessionId: "s", seq: 0, content: "first turn", scope: "a" }]);
    const last = gllam.addEpisodes([1, 2, 3].map((seq) => ({ sessionId: "s", seq, content: `turn ${seq} by mira`, scope: "a", sourceId: source }))).ids;
    expect(gllam.forget({ source, scope: "a" }).removed.episodes).toEqual(last);
    expect(count(gllam, "SELECT count(*) AS n FROM episode_static_vectors")).toBe(1);
    // Before the fix: "UNIQUE constraint failed on episode_static_vectors primary key", in every scope.
    for (const scope of ["b", "a"]) expect(gllam.addEpisodes([1, 2].map((seq) => ({ sessionId: "t", seq, content: `new turn ${seq}`, scope }))).inserted).toBe(2);
    // Ids are never given again: nothing derived from a forgotten episode can attach to a new one.
    expect(Math.min(...gllam.addEpisodes([{ sessionId: "t", seq: 9, content: "later" }]).ids)).toBeGreaterThan(Math.max(...last));
    gllam.close();
  });

  test("an episode goes from every table, and the next turn is no longer found by its words", async () => {
    const gllam = await openTempGllam(dir, { embedder: hash });
    gllam.upsertNode({ id: "locker", name: "locker" });
    const source = gllam.upsertSource({ docType: "slack", handle: "mira" }).source.id;
    const [code, reply] = gllam.addEpisodes(chat.map((turn, i) => (i === 0 ? { ...turn, sourceId: source } : turn))).ids as [number, number, number];
    await gllam.waitForEmbeddings();
    gllam.addEpisodes([{ sessionId: "other", seq: 0, speaker: "Mira", content: "Mira again" }]);
    gllam.db().run("INSERT INTO episode_vector_staging (tier, episode_id, scope, embedding) VALUES ('model', ?, 'default', x'00')", [code]);
    expect(rowsOf(gllam, code)).toEqual({ episodes: 1, episodes_fts: 1, episode_vectors: 1, episode_static_vectors: 1, episode_vector_queue: 0, episode_mentions: 1, episode_vector_staging: 1 });
    // Each turn is indexed with the one before it: the reply is found by the code.
    expect(fts(gllam, "4471")).toBe(2);

    const report = gllam.forget({ source });
    // Mentions: locker in the forgotten turn, and the source's own node ("mira") in the other session.
    expect(report.removed).toMatchObject({ episodes: [code], episodeVectors: 2, mentions: 2 });
    expect(Object.values(rowsOf(gllam, code)).every((n) => n === 0)).toBe(true);
    expect(fts(gllam, "4471")).toBe(0);
    expect((await gllam.searchEpisodes("locker code 4471")).hits.map((h) => h.episodeId)).not.toContain(code);
    // The reply is still found by its own words; Mira still speaks elsewhere, so she stays a speaker.
    expect((await gllam.searchEpisodes("noted phone")).hits[0]!.episodeId).toBe(reply);
    expect(count(gllam, "SELECT count(*) AS n FROM episode_speakers WHERE speaker = 'Mira'")).toBe(1);
    gllam.close();
  });

  test("a session: its episodes, summaries, checkpoints and row; claims only it supports go, others are re-attributed", async () => {
    const gllam = await openTempGllam(dir, { embedder: hash });
    for (const id of ["mira", "locker", "gym"]) gllam.upsertNode({ id, name: id, scope: "club" });
    const ids = gllam.addEpisodes(chat.map((turn) => ({ ...turn, scope: "club" }))).ids;
    const kept = gllam.addEpisodes([{ sessionId: "other", seq: 0, content: "Mira goes to the gym", scope: "club" }]).ids[0]!;
    gllam.saveEpisodicSummary({ sessionId: "locker", scope: "club", summary: "Mira shared the locker code 4471" });
    gllam.db().run("INSERT INTO extracted_sessions (scope, session_id, extractor, extracted_at) VALUES ('club', 'locker', 'test', 0)");
    const only = gllam.addEdge({ sourceId: "mira", targetId: "locker", relationship: "owns", episodeId: ids[0], scope: "club" });
    const shared = gllam.addEdge({ sourceId: "mira", targetId: "gym", relationship: "visits", episodeId: ids[2], scope: "club" });
    gllam.addEdge({ sourceId: "mira", targetId: "gym", relationship: "visits", episodeId: kept, scope: "club" });

    await expectGllamError(() => gllam.forget({ session: "locker" }), "E_NOT_FOUND", /no session locker/);
    const report = gllam.forget({ session: "locker", scope: "club" });
    expect(report.removed).toMatchObject({ sessions: ["locker"], episodes: ids, links: [only.linkId], summaries: 1 });
    expect(report.reattributed).toEqual([shared.linkId]);
    expect(gllam.activeLinks("mira", { scope: "club" }).find((l) => l.id === shared.linkId)).toMatchObject({ episodeId: kept, evidenceCount: 1 });
    for (const table of ["sessions WHERE id = 'locker'", "episodes WHERE session_id = 'locker'", "episodic_summaries", "extracted_sessions"]) {
      expect(count(gllam, `SELECT count(*) AS n FROM ${table}`)).toBe(0);
    }
    expect(count(gllam, "SELECT count(*) AS n FROM episodes")).toBe(1);
    gllam.close();
  });

  test("a summary whose window holds a forgotten episode goes; others of the session stay", async () => {
    const gllam = await openTempGllam(dir, { embedder: hash });
    const at = (day: number) => Date.UTC(2024, 0, day);
    const [early] = gllam.addEpisodes([
      { sessionId: "s", seq: 0, content: "early secret", occurredAt: at(1) },
      { sessionId: "s", seq: 1, content: "late chat", occurredAt: at(20) },
    ]).ids;
    gllam.saveEpisodicSummary({ sessionId: "s", summary: "the early secret", startTime: at(1), endTime: at(10) });
    gllam.saveEpisodicSummary({ sessionId: "s", summary: "late chat", startTime: at(15), endTime: at(25) });
    expect(gllam.forget({ episode: early! }).removed.summaries).toBe(1);
    expect(gllam.getEpisodicSummaries({ sessionId: "s" }).map((s) => s.summary)).toEqual(["late chat"]);
    gllam.close();
  });

  test("the CLI forgets an episode and a session of a scope, and reports what went", async () => {
    const setup = await openTempGllam(dir, { embedder: hash });
    const path = setup.path;
    const [first] = setup.addEpisodes(chat).ids;
    setup.addEpisodes([{ sessionId: "trip", seq: 0, content: "ferry at nine", scope: "travel" }]);
    setup.close();

    const episode = runGllam(["forget", "episode", String(first), "--db", path, "--json"]);
    expect(episode.stderr).toBe("");
    expect(JSON.parse(episode.stdout)).toMatchObject({ removed: { episodes: [first] }, reindexed: 1, walPurged: true });
    const session = runGllam(["forget", "session", "trip", "--scope", "travel", "--db", path]);
    expect(session.stdout).toContain("removed 0 nodes, 0 links, 0 sources, 1 sessions, 1 episodes");
    const missing = runGllam(["forget", "episode", String(first), "--db", path]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no episode \d+ \[E_NOT_FOUND\]/);
    expect(runGllam(["forget", "episode", "x", "--db", path]).stderr).toMatch(/an episode id is a positive integer, got x \[E_BAD_INPUT\]/);
  });
});
