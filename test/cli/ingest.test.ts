import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir, runGllam } from "../helpers.ts";

const dir = makeTempDir();
const db = join(dir, "ingest.db");
const chat = join(dir, "chat.jsonl");
writeFileSync(
  chat,
  [
    { session_id: "trip", speaker: "Ann", content: "We booked the ferry to Tangier for the 12th.", timestamp: "2024-06-01T10:00:00Z" },
    { session_id: "trip", speaker: "Bob", content: "Great, I will pack the snorkel gear.", timestamp: "2024-06-01T10:01:00Z" },
    { session_id: "work", speaker: "Ann", content: "The quarterly report is late again.", timestamp: "2024-06-03T09:00:00Z" },
  ]
    .map((line) => JSON.stringify(line))
    .join("\n"),
);

describe("gllam ingest", () => {
  test("ingests, reports one summary line per file, re-ingests nothing, embeds with --wait; recall finds episodes", () => {
    const first = runGllam(["ingest", chat, "--db", db, "--wait"]);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("chat.jsonl (jsonl): 3 new, 0 already stored");
    expect(first.stdout).toMatch(/embedded 3 episodes \(use-lite/);
    const again = runGllam(["ingest", chat, "--db", db]);
    expect(again.stdout).toContain("0 new, 3 already stored");

    const recalled = runGllam(["recall", "when", "is", "the", "ferry", "--db", db, "--json"]);
    expect(recalled.stderr).toBe("");
    const result = JSON.parse(recalled.stdout);
    expect(result.episodes[0]).toMatchObject({ sessionId: "trip", speaker: "Ann", bm25Rank: 1, occurredAt: Date.UTC(2024, 5, 1, 10) });
    expect(result.episodes[0].denseRank).toBeGreaterThanOrEqual(1);
    expect(result.denseUsed).toBe(true);
    const markdown = runGllam(["recall", "ferry", "--db", db, "--window", "2024-06-02..2024-07-01"]).stdout;
    expect(markdown).not.toContain("ferry to Tangier");
    const june1Run = runGllam(["recall", "ferry", "--db", db, "--window", "2024-06-01..2024-06-02"]);
    expect(june1Run.stderr).toBe("");
    const june1 = june1Run.stdout;
    expect(june1).toMatch(/1\. \[2024-06-01 · trip #0\] \*\*Ann:\*\* We booked the ferry to Tangier/);
  });

  test("a malformed line fails the file with file:line, and nothing from it is written", () => {
    const bad = join(dir, "bad.jsonl");
    writeFileSync(bad, '{"session_id": "x", "content": "fine"}\n{"session_id": "x", "content": }\n');
    const out = runGllam(["ingest", bad, "--db", db]);
    expect(out.code).toBe(1);
    expect(out.stderr.trim()).toMatch(/^gllam: .*bad\.jsonl:2: invalid JSON .*\[E_BAD_INPUT\]$/);
    const stats = JSON.parse(runGllam(["stats", "--json", "--db", db]).stdout);
    expect(stats.tables.episodes).toBe(3);

    const skipped = runGllam(["ingest", bad, "--db", db, "--skip-bad"]);
    expect(skipped.code).toBe(0);
    expect(skipped.stdout).toContain("1 new, 0 already stored, 1 bad records skipped");
    expect(skipped.stdout).toMatch(/skipped .*bad\.jsonl:2: invalid JSON/);
  });

  test("--wait says when it also embeds episodes queued before this ingest", () => {
    const queued = join(dir, "queued.db");
    expect(runGllam(["ingest", chat, "--db", queued]).stdout).toContain("3 episodes await model vectors");
    const more = join(dir, "more.jsonl");
    writeFileSync(more, JSON.stringify({ session_id: "more", speaker: "Cy", content: "The museum opens at nine." }));
    const out = runGllam(["ingest", more, "--db", queued, "--wait"]);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("also embedding 3 episodes queued before this ingest");
    expect(out.stdout).toMatch(/embedded 4 episodes/);
    expect(runGllam(["ingest", chat, "--db", queued, "--wait"]).stdout).not.toContain("also embedding");
  });

  test("bad flags and missing files are clear errors", () => {
    expect(runGllam(["ingest", chat, "--db", db, "--format", "csv"]).stderr).toMatch(/invalid --format: .*must be one of auto, jsonl/);
    expect(runGllam(["ingest", join(dir, "none.jsonl"), "--db", db]).stderr).toMatch(/cannot read .*none\.jsonl: no such file \[E_NOT_FOUND\]/);
  });

  test("reembed fills vectors that ingest deferred", () => {
    const other = join(dir, "deferred.db");
    expect(runGllam(["ingest", chat, "--db", other]).stdout).toContain("3 episodes await model vectors");
    const out = runGllam(["reembed", "--db", other]);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("filled missing vectors (use-lite-512@energetic-ai-0.2.0): 0 nodes, 3 episodes");
  });

  test("--embedder static (or $GLLAM_EMBEDDER): static vectors at ingest, nothing to wait for, recall uses them", () => {
    const staticDb = join(dir, "static.db");
    const ingested = runGllam(["ingest", chat, "--db", staticDb, "--embedder", "static", "--wait"]);
    expect(ingested).toMatchObject({ code: 0, stderr: "" });
    expect(ingested.stdout).toMatch(/static vectors written at ingest \(static-[0-9a-f]{12}:/);
    expect(ingested.stdout).not.toMatch(/await|embedded \d+ episodes/);
    const recalled = runGllam(["recall", "ferry", "trip", "--db", staticDb, "--json"], { env: { GLLAM_EMBEDDER: "static" } });
    expect(recalled.stderr).toBe("");
    const result = JSON.parse(recalled.stdout);
    expect(result.denseUsed).toBe(true);
    expect(result.episodes[0]).toMatchObject({ sessionId: "trip", bm25Rank: 1, denseRank: null });
    expect(result.episodes[0].staticRank).toBeGreaterThanOrEqual(1);
    const stats = JSON.parse(runGllam(["stats", "--json", "--db", staticDb]).stdout);
    expect(stats).toMatchObject({ embeddingModel: null, tables: { episodes: 3, episode_static_vectors: 3 } });
  });

  test.each([
    [["--embedder", "bogus"], {}, /invalid settings: embedder: must be one of static, model, http \[E_BAD_INPUT\]/],
    [["--embedder", "http"], {}, /the http embedder needs an embeddings server \(--embeddings-server URL .*\[E_CONFIG\]/],
    [[], { GLLAM_EMBEDDER: "fast" }, /invalid environment: .*GLLAM_EMBEDDER.*must be one of static, model, http.*\[E_CONFIG\]/],
  ])("a bad embedder choice is a clear error: %p %p", (flags, env, message) => {
    const out = runGllam(["recall", "ferry", "--db", db, ...flags], { env: env as Record<string, string> });
    expect(out.code).toBe(1);
    expect(out.stderr.trim()).toMatch(message);
  });

  test("bench retrieval scores a small LoCoMo-shaped file", () => {
    const data = join(dir, "mini-locomo.json");
    writeFileSync(
      data,
      JSON.stringify([
        {
          sample_id: "m1",
          conversation: {
            speaker_a: "Ann",
            speaker_b: "Bob",
            session_1_date_time: "1:56 pm on 8 May, 2023",
            session_1: [
              { speaker: "Ann", dia_id: "D1:1", text: "I started pottery classes." },
              { speaker: "Bob", dia_id: "D1:2", text: "My car broke down on the highway." },
              { speaker: "Ann", dia_id: "D1:3", text: "The weather is nice." },
            ],
          },
          qa: [
            { question: "What classes did Ann start?", answer: "pottery", evidence: ["D1:1"], category: 4 },
            { question: "What broke down?", answer: "car", evidence: ["D1:2; D9:9"], category: 1 },
            { question: "Unanswerable?", adversarial_answer: "x", evidence: ["D1:3"], category: 5 },
          ],
        },
      ]),
    );
    const out = runGllam(["bench", "retrieval", "--dataset", "locomo", "--data", data, "--bm25-only", "--json", join(dir, "out.json")]);
    expect(out.code).toBe(0);
    const result = JSON.parse(out.stdout);
    expect(result).toMatchObject({ dataset: "locomo", questions: 2, overall: { "recall@5": 1, "recall@10": 1, "recall@20": 1 } });
    expect(Object.keys(result.by_category).sort()).toEqual(["multi-hop", "single-hop"]);
    expect(result.ingest_turns_per_s).toBeGreaterThan(0);

    // Each tier alone, BM25 alone and the fusions, scored on the same databases.
    const tiers = JSON.parse(runGllam(["bench", "retrieval", "--dataset", "locomo", "--data", data, "--embedder", "static"]).stdout);
    expect(Object.keys(tiers.variants).sort()).toEqual(["bm25", "bm25+model", "bm25+static", "default", "model", "static"]);
    expect(tiers.variants.static.overall["recall@20"]).toBe(1);
    expect(tiers.variants.default.overall).toEqual(tiers.overall);
    expect(tiers).toMatchObject({ embedder: "none", model_embed_turns_per_s: 0 });
    expect(tiers.embed_turns_per_s).toBeGreaterThan(0);
    expect(tiers.static_embedder).toMatch(/^static-/);
  });
});
