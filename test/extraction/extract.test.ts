import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Gllam } from "../../src/gllam/gllam.ts";
import { expectGllamError, makeTempDir, openTempGllam } from "../helpers.ts";
import { layerOn, noLlm } from "../llm/stub-layer.ts";
import { startStubServer, type StubServer } from "../llm/stub-server.ts";
import { answerFor, locomoFileOf, placeFact, readDevConversation, type DevConversation, locomoTestFile } from "./locomo-script.ts";

const locomo = locomoTestFile();
const DAY = 86_400_000;

/** The stub as the STRONG role, under a model name and headers. */
const strongOn = (url: string, model = "stub-model", headers: Record<string, string> = {}) => layerOn(url, { strong: { model, headers } });

type LinkRow = { id: number; sourceId: string; targetId: string; relationship: string; validFrom: number; validUntil: number | null; expiredAt: number | null; originSourceId: string | null; episodeId: number | null; metadata: string };
const links = (gllam: Gllam): LinkRow[] =>
  gllam
    .db()
    .query<LinkRow, []>(
      "SELECT id, source_id AS sourceId, target_id AS targetId, relationship, valid_from AS validFrom, valid_until AS validUntil, expired_at AS expiredAt, origin_source_id AS originSourceId, episode_id AS episodeId, metadata FROM semantic_links WHERE relationship = 'located_in' ORDER BY id",
    )
    .all();
const nodeName = (gllam: Gllam, id: string) => gllam.db().query<{ name: string }, [string]>("SELECT name FROM semantic_nodes WHERE id = ?").get(id)!.name;
const marked = (gllam: Gllam) => gllam.db().query<{ n: number }, []>("SELECT count(*) AS n FROM extracted_sessions").get()!.n;

describe("extraction of a LoCoMo conversation (the dev file, else a generated one)", () => {
  let stub: StubServer;
  let conversation: DevConversation;
  let gllam: Gllam;
  let a: string;
  let b: string;
  const dir = makeTempDir();

  beforeAll(async () => {
    stub = await startStubServer();
    conversation = readDevConversation(locomo, 3);
    [a, b] = conversation.speakers;
    const file = join(dir, "conversation.json");
    await Bun.write(file, locomoFileOf(conversation));
    gllam = await openTempGllam(dir, { staticEmbedder: null, llm: strongOn(stub.url) });
    await gllam.ingestFiles([file], { format: "locomo" });
  });
  afterAll(async () => {
    gllam.close();
    await stub.stop();
  });

  const [s1, s2, s3] = [0, 1, 2];
  const script = (place2 = "Place 2") => {
    const [one, two, three] = [s1, s2, s3].map((i) => conversation.sessions[i]!);
    return {
      rules: [
        answerFor(one!, [placeFact(one!, a, "Place 1", "yesterday")]),
        answerFor(two!, [placeFact(two!, a, place2)]),
        answerFor(three!, [placeFact(three!, b, "Place 3"), { ...placeFact(three!, a, "Place 4"), subject: b }]),
      ],
    };
  };

  test("an unreachable server, an unknown model or a refused key stops the run with nothing written", async () => {
    const { Gllam } = await import("../../src/gllam/gllam.ts");
    stub.setScript({ models: ["served"], apiKey: "right", rules: [{ reply: { json: { facts: [] } } }] });
    const cases = [
      [strongOn("http://127.0.0.1:9", "served"), "E_LLM_UNREACHABLE"],
      [strongOn(stub.url, "nope", { Authorization: "Bearer right" }), "E_LLM_MODEL"],
      [strongOn(stub.url, "served", { Authorization: "Bearer wrong" }), "E_LLM_AUTH"],
    ] as const;
    for (const [llm, code] of cases) {
      const other = await Gllam.open(gllam.path, { staticEmbedder: null, llm });
      await expectGllamError(other.extract({ concurrency: 2 }), code);
      other.close();
    }
    expect(links(gllam)).toHaveLength(0);
    expect(marked(gllam)).toBe(0);
  });

  test("facts land with speaker sources, session-resolved valid times and provenance; later sessions succeed or contradict", async () => {
    stub.setScript(script());
    const report = await gllam.extract();
    expect([report.extracted, report.failed, report.matched]).toEqual([3, 0, 3]);
    expect(report.usage.promptTokens).toBe(stub.stats().promptTokens);
    expect(report.usage.completionTokens).toBe(stub.stats().completionTokens);
    expect(marked(gllam)).toBe(3);

    const rows = links(gllam);
    const [place1, place2] = ["Place 1", "Place 2"].map((p) => rows.find((r) => nodeName(gllam, r.targetId) === p)!);
    // Said by the speaker, in the session's content type (a conversation).
    expect(place1!.originSourceId).toContain(`source:conversation:${a.toLowerCase()}`);
    // "yesterday" is the day before the first session.
    const sessionStart = gllam.db().query<{ t: number }, [string]>("SELECT started_at AS t FROM sessions WHERE id = ?").get(`${conversation.sampleId}/${conversation.sessions[s1]!.key}`)!.t;
    expect(place1!.validFrom).toBe(Math.floor(sessionStart / DAY) * DAY - DAY);
    // Provenance: the quoted turn's episode, in the link and its metadata.
    const episode = gllam.db().query<{ content: string; speaker: string }, [number]>("SELECT content, speaker FROM episodes WHERE id = ?").get(place1!.episodeId!)!;
    expect(episode.speaker).toBe(a);
    expect(JSON.parse(place1!.metadata).extraction.episodes).toEqual([place1!.episodeId]);
    // The second session moves the speaker: succession, the first link ends where the second starts.
    expect(place1!.validUntil).toBe(place2!.validFrom);
    expect(place2!.validUntil).toBeNull();
    // Two speakers disagree about the third at the same time with equal trust: a contradiction stays open.
    const third = rows.filter((r) => nodeName(gllam, r.sourceId) === b);
    expect(third).toHaveLength(2);
    const contradictions = gllam.db().query<{ n: number }, []>("SELECT count(*) AS n FROM semantic_nodes WHERE type = 'contradiction'").get()!.n;
    const weights = third.map((r) => gllam.db().query<{ w: number }, [number]>("SELECT trust_weight AS w FROM semantic_links WHERE id = ?").get(r.id)!.w);
    if (weights[0] === weights[1]) expect(contradictions).toBe(1);
    else expect(third.filter((r) => r.expiredAt !== null)).toHaveLength(1);
  });

  test("a rerun resumes: nothing asked, nothing written", async () => {
    const before = links(gllam).map((r) => r.id);
    stub.setScript(script());
    const report = await gllam.extract();
    expect([report.extracted, report.alreadyExtracted]).toEqual([0, 3]);
    expect(stub.requests).toHaveLength(0);
    expect(links(gllam).map((r) => r.id)).toEqual(before);
  });

  test("--dry-run asks the model and writes nothing", async () => {
    const before = links(gllam).length;
    stub.setScript(script());
    const report = await gllam.extract({ clean: true, dryRun: true });
    expect(report.outcomes.flatMap((o) => o.planned.map((p) => p.object)).sort()).toEqual(["Place 1", "Place 2", "Place 3", "Place 4"]);
    expect(links(gllam)).toHaveLength(before);
  });

  test("--clean replaces one session's output and only that", async () => {
    const before = links(gllam);
    stub.setScript(script("Harbour"));
    const report = await gllam.extract({ clean: true, prefix: `${conversation.sampleId}/${conversation.sessions[s2]!.key}` });
    expect(report.extracted).toBe(1);
    expect(report.outcomes[0]!.removed).toMatchObject({ links: 1 });
    const after = links(gllam);
    const names = after.map((r) => nodeName(gllam, r.targetId));
    expect(names).not.toContain("Place 2");
    expect(names).toContain("Harbour");
    // The other sessions' links are the same rows, and the first is ended by the new claim again.
    const kept = before.filter((r) => !JSON.parse(r.metadata).extraction.session.endsWith(conversation.sessions[s2]!.key));
    for (const row of kept) expect(after.some((r) => r.id === row.id)).toBe(true);
    const harbour = after.find((r) => nodeName(gllam, r.targetId) === "Harbour")!;
    expect(after.find((r) => nodeName(gllam, r.targetId) === "Place 1")!.validUntil).toBe(harbour.validFrom);
    expect(gllam.db().query("SELECT 1 FROM semantic_nodes WHERE name = 'Place 2'").get()).toBeNull();
  });

  test("a session whose answer stays unusable fails alone, unmarked, and is retried by the next run", async () => {
    const fresh = await openTempGllam(dir, { staticEmbedder: null, llm: strongOn(stub.url) });
    const file = join(dir, "c.json");
    await Bun.write(file, locomoFileOf(conversation));
    await fresh.ingestFiles([file], { format: "locomo" });
    const good = script();
    stub.setScript({ rules: [{ ...good.rules[1]!, reply: { json: { facts: [{ subject: a }] } } }, { match: "could not be used", reply: { json: { facts: "none" } } }, good.rules[0]!, good.rules[2]!] });
    const report = await fresh.extract({ concurrency: 3 });
    expect([report.extracted, report.failed]).toEqual([2, 1]);
    expect(report.outcomes.find((o) => o.status === "failed")!.error).toMatch(new RegExp(`^session ${conversation.sampleId}/${conversation.sessions[s2]!.key}: `));
    expect(marked(fresh)).toBe(2);
    stub.setScript(script());
    const retry = await fresh.extract();
    expect([retry.extracted, retry.alreadyExtracted]).toEqual([1, 2]);
    expect(marked(fresh)).toBe(3);
    fresh.close();
  });

  test("a session longer than the context goes in chunks; their answers are written together", async () => {
    const long = { ...conversation, sessions: [{ ...readDevConversation(locomo, 1, 40).sessions[0]!, key: "session_1" }] };
    const chunked = await openTempGllam(dir, {
      staticEmbedder: null,
      llm: layerOn(stub.url, { config: { context_tokens: 1024 } }),
    });
    const file = join(dir, "long.json");
    await Bun.write(file, locomoFileOf(long));
    await chunked.ingestFiles([file], { format: "locomo" });
    const session = long.sessions[0]!;
    stub.setScript({
      rules: [
        { match: "Part 1 of", reply: { json: { facts: [placeFact(session, a, "First Place")] } } },
        { match: "Part 2 of", reply: { json: { facts: [{ subject: b, relationship: "likes", object: "Second Thing" }] } } },
        { reply: { json: { facts: [] } } },
      ],
    });
    const report = await chunked.extract();
    expect(report.outcomes[0]!.chunks).toBeGreaterThan(1);
    expect(stub.requests).toHaveLength(report.outcomes[0]!.chunks);
    expect(stub.requests.map((r) => /Part (\d+) of (\d+)/.exec(r.lastUser)!.slice(1).join("/"))).toEqual(stub.requests.map((_, i) => `${i + 1}/${stub.requests.length}`));
    // Every turn went to the model once, in order.
    const numbers = stub.requests.flatMap((r) => [...r.lastUser.matchAll(/^\[(\d+)\]/gm)].map((m) => Number(m[1])));
    expect(numbers).toEqual(session.turns.map((_, i) => i + 1));
    expect(report.outcomes[0]!.facts.map((f) => f.object).sort()).toEqual(["First Place", "Second Thing"]);
    chunked.close();
  });

  test("with a FAST model, every quoted claim is read by the fallacy judge before it is written", async () => {
    const judged = await openTempGllam(dir, {
      staticEmbedder: null,
      llm: layerOn(stub.url, { strong: { model: "big" }, fast: { model: "small" }, config: { max_retries: 0 } }),
    });
    const file = join(dir, "judged.json");
    await Bun.write(file, locomoFileOf({ ...conversation, sessions: conversation.sessions.slice(0, 1) }));
    await judged.ingestFiles([file], { format: "locomo" });
    const [one] = script().rules;
    stub.setScript({ rules: [{ matchAny: "logical fallacies", reply: { json: { findings: [{ kind: "red_herring", cue: "off topic" }] } } }, one!] });
    const report = await judged.extract();
    expect(report.fallacyJudge).toBe("llm:small + rules");
    expect(stub.requests.map((r) => r.model)).toEqual(["big", "small"]);
    const fallacy = judged.db().query<{ metadata: string }, []>("SELECT metadata FROM semantic_nodes WHERE type = 'fallacy'").get()!;
    expect(JSON.parse(fallacy.metadata)).toMatchObject({ kind: "red_herring", detector: "llm:small" });
    expect(JSON.parse(links(judged)[0]!.metadata).suppressExpansion).toBe(true);
    judged.close();
  });
});

test("without an LLM, extraction says how to configure one", async () => {
  const gllam = await openTempGllam(makeTempDir(), { staticEmbedder: null, llm: noLlm() });
  await expectGllamError(() => gllam.extract(), "E_CONFIG", /STRONG_TEXT_SERVER/);
  gllam.close();
});
