import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { buildScaleCorpus, corpusSlice } from "../../src/bench/scale-corpus.ts";
import { writeScalePlot } from "../../src/bench/scale-plot.ts";
import { readQuestionSets } from "../../src/bench/scale.ts";
import { parseSizes } from "../../src/cli/commands/bench-scale.ts";
import { episodeContentHash } from "../../src/episodic/episodes.ts";
import type { IngestUnit } from "../../src/episodic/formats/source.ts";
import { compiledGllam } from "../binary-build.ts";
import { makeTempDir, runGllam } from "../helpers.ts";
import { installCompiled } from "../scripts/compiled.ts";

const DAY = 86_400_000;
const units: IngestUnit[] = [
  {
    key: "conv-1",
    sessions: [{ scope: "default", id: "conv-1/session_1", startedAt: 1_700_000_000_000 }],
    episodes: ["Caroline went hiking near the lake with her sister", "Melanie painted a sunrise over the harbour", "Caroline adopted a puppy called Biscuit"].map(
      (content, seq) => ({ scope: "default", sessionId: "conv-1/session_1", seq, speaker: seq % 2 ? "Melanie" : "Caroline", content, occurredAt: 1_700_000_000_000, metadata: { dia_id: `D1:${seq + 1}` } }),
    ),
  },
];

const QUESTIONS = [
  { question: "Who painted a sunrise?", answer: "Melanie", evidence: ["D1:2"], category: 1 },
  { question: "Where did Caroline hike?", answer: "near the lake", evidence: ["D1:1"], category: 1 },
  { question: "What is the puppy called?", answer: "Biscuit", evidence: ["D1:3"], category: 1 },
];

/** A LoCoMo file of the units' one conversation and these questions, in `dir`. */
function writeLocomo(dir: string, qa: typeof QUESTIONS, name = "locomo.json", rewrite = (text: string) => text): string {
  const path = join(dir, name);
  const turns = units[0]!.episodes.map((e, i) => ({ speaker: e.speaker, dia_id: `D1:${i + 1}`, text: rewrite(e.content) }));
  writeFileSync(path, JSON.stringify([{ sample_id: "conv-1", conversation: { speaker_a: "A", speaker_b: "B", session_1_date_time: "1:56 pm on 8 May, 2023", session_1: turns }, qa }]));
  return path;
}

describe("scale corpus", () => {
  const corpus = buildScaleCorpus(units);

  test("copy 0 is the source; later copies have their own sessions, speakers, dates and words, and the same doc keys", () => {
    const [original] = corpus.copy(0);
    const [copy] = corpus.copy(3);
    expect(original!.episodes.map((e) => e.content)).toEqual(units[0]!.episodes.map((e) => e.content));
    expect(copy!.episodes.map((e) => e.sessionId)).toEqual(["conv-1/session_1~3", "conv-1/session_1~3", "conv-1/session_1~3"]);
    expect(copy!.episodes[0]!.occurredAt).toBe(1_700_000_000_000 + 3 * 7 * DAY);
    expect(copy!.episodes.map((e) => e.metadata)).toEqual(["D1:1", "D1:2", "D1:3"].map((dia) => ({ doc: `conv-1:${dia}`, copy: 3 })));
    expect(copy!.episodes.map((e) => e.speaker)).not.toEqual(original!.episodes.map((e) => e.speaker));
    const words = (c: number) => corpus.copy(c).flatMap((u) => u.episodes.map((e) => e.content));
    expect(new Set(Array.from({ length: 20 }, (_, c) => words(c).join("|"))).size).toBe(20);
  });

  test("the same seed gives the same turns, and every turn is distinct by content hash", () => {
    expect(buildScaleCorpus(units).copy(5)).toEqual(corpus.copy(5));
    const turns = corpusSlice(corpus, 0, 60).flatMap((u) => u.episodes);
    expect(turns).toHaveLength(60);
    const hashes = turns.map((e) => episodeContentHash({ kind: "turn", sessionId: e.sessionId, seq: e.seq, role: "", speaker: e.speaker ?? "", content: e.content, occurredAt: e.occurredAt as number }));
    expect(new Set(hashes).size).toBe(60);
  });

  test("slices cut whole copies at any turn, in order", () => {
    const slice = corpusSlice(corpus, 2, 7).flatMap((u) => u.episodes.map((e) => e.metadata));
    expect(slice.map((m) => [m?.copy, m?.doc])).toEqual([
      [0, "conv-1:D1:3"],
      [1, "conv-1:D1:1"],
      [1, "conv-1:D1:2"],
      [1, "conv-1:D1:3"],
      [2, "conv-1:D1:1"],
    ]);
  });
});

describe("question sets", () => {
  // Ten questions in two conversations; "Q3" is asked twice in the file, once in each.
  const texts = ["Q0", "Q1", "Q2", "Q3", "Q4", "Q5", "Q6", "Q7", "Q3", "Q9"];
  const data = [0, 1].map((c) => ({ sample_id: `conv-${c}`, qa: texts.slice(c * 5, c * 5 + 5).map((question, i) => ({ question, evidence: [`D1:${i + 1}`] })) }));
  const textsOf = (questions: { text: string }[]) => questions.map((question) => question.text);

  test.each([
    // count, warm: asked, fresh, warm
    [2, 3, ["Q0", "Q5"], ["Q1", "Q4"], ["Q2", "Q3", "Q7"]],
    [4, 1, ["Q0", "Q2", "Q5", "Q7"], ["Q1", "Q4"], ["Q3"]],
    [2, 0, ["Q0", "Q5"], ["Q1", "Q4"], []],
  ] as const)("%p asked, %p warm", (count, warm, asked, fresh, warmed) => {
    const sets = readQuestionSets(data, count, warm);
    expect(textsOf(sets.asked)).toEqual([...asked]);
    expect(textsOf(sets.fresh)).toEqual([...fresh]);
    expect(textsOf(sets.warm)).toEqual([...warmed]);
  });

  test("no new or warm question has the text of an asked one or of another; half of the other texts at most are new", () => {
    for (const count of [1, 3, 5, 9]) {
      const sets = readQuestionSets(data, count, 10);
      const asked = new Set(textsOf(sets.asked));
      const fresh = textsOf(sets.fresh);
      expect(fresh.some((text) => asked.has(text))).toBe(false);
      const warm = textsOf(sets.warm);
      expect(warm.some((text) => asked.has(text) || fresh.includes(text))).toBe(false);
      expect(new Set([...fresh, ...warm]).size).toBe(fresh.length + warm.length);
      const unasked = new Set(texts.filter((text) => !asked.has(text))).size;
      expect(fresh.length).toBe(Math.min(count, Math.floor(unasked / 2)));
    }
  });

  test("with every question asked there are none new", () => {
    expect(readQuestionSets(data, 10, 5)).toMatchObject({ fresh: [], warm: [] });
  });
});

describe("bench scale", () => {
  test.each([
    ["10000,100000,1000000", [10_000, 100_000, 1_000_000]],
    ["10k, 1m", [10_000, 1_000_000]],
    ["5,5", [5]],
  ] as const)("--sizes %p", (text, sizes) => expect(parseSizes(text)).toEqual([...sizes]));

  test.each(["", "10k,", "ten", "0", "1.5"])("--sizes %p is refused", (text) => expect(() => parseSizes(text)).toThrow(/--sizes/));

  test("the plot has a line per series and log-scale axes", () => {
    const row = (episodes: number, ms: number) => ({
      episodes, ingest_turns_per_s: 9000, ingest_turns_per_cpu_s: 12000, db_bytes: episodes * 1000, recall_p50_ms: ms, recall_p95_ms: ms * 2, recall_again_p50_ms: ms * 0.8, recall_again_p95_ms: ms * 1.5, recall_new_p50_ms: ms * 0.9, recall_new_p95_ms: ms * 1.7, lexical_p50_ms: ms / 2,
      model_recall_p50_ms: null, knn_p50_ms: ms / 3, knn_k100_p50_ms: ms / 2, knn_exact_p50_ms: ms, knn_recall_at_10: 0.4, knn_exact_recall_at_10: 0.4, knn_overlap_at_10: 1, ingest_peak_rss_mb: 250, query_peak_rss_mb: 300, peak_rss_mb: 300, rss_anon_mb: 200, rss_file_mb: 100,
    });
    const svg = writeScalePlot({ sizes: [row(10_000, 5), row(100_000, 9)], peak_rss_mb: 300, base_rss_mb: 90, model_rss_mb: null, turns_per_copy: 3, questions: 2, static_embedder: "s", model_sample: 0, questions_warm: 0, questions_new: 0, embedded_ahead: { chunks: 2, failed: 0 }, mimalloc_purge_delay: null, process_per_size: false });
    expect(svg).toStartWith("<svg");
    expect(svg.match(/<polyline/g)).toHaveLength(8);
    expect(svg).toContain(">10K<");
    expect(svg).toContain(">100K<");
    expect(svg).toContain("peak RSS 300 MB");
    // The legends sit below the panels (whose frames end at y 360), where no line runs through them;
    // every label, the last size's included, starts inside the picture.
    const textAt = (name: string) => Number(new RegExp(`<text x="[\\d.]+" y="([\\d.]+)">${name}</text>`).exec(svg)?.[1]);
    for (const name of ["recall p95", "recall p50, new questions", "static KNN p50", "per CPU-second"]) expect(textAt(name)).toBeGreaterThan(360);
    const width = Number(/<svg[^>]* width="(\d+)"/.exec(svg)![1]);
    const height = Number(/<svg[^>]* height="(\d+)"/.exec(svg)![1]);
    for (const [, x, y] of svg.matchAll(/<text x="([\d.]+)" y="([\d.]+)"/g)) {
      expect(Number(x)).toBeLessThan(width - 10);
      expect(Number(y)).toBeLessThan(height);
    }
  });

  test("a small run from the CLI writes the JSON (every field, the model tier's from a worker) and the plot", () => {
    const dir = makeTempDir();
    const data = writeLocomo(dir, QUESTIONS);
    const run = runGllam(["bench", "scale", "--data", data, "--sizes", "30,90", "--queries", "1", "--warm", "1", "--model-sample", "4", "--process-per-size", "--json", join(dir, "out.json"), "--plot", join(dir, "out.svg")]);
    expect(run.stderr).not.toContain("rror");
    expect(run.code).toBe(0);
    const result = JSON.parse(readFileSync(join(dir, "out.json"), "utf8"));
    expect(result.sizes.map((s: { episodes: number }) => s.episodes)).toEqual([30, 90]);
    expect(result.sizes[1].knn_exact_recall_at_10).toBeGreaterThan(0);
    expect(Object.keys(result).sort()).toEqual(["base_rss_mb", "embedded_ahead", "mimalloc_purge_delay", "model_rss_mb", "model_sample", "peak_rss_mb", "process_per_size", "questions", "questions_new", "questions_warm", "sizes", "static_embedder", "turns_per_copy"]);
    // Each size in a process of its own (--process-per-size): the first fills the model's sample, the second uses it.
    expect(result.process_per_size).toBe(true);
    // One question asked, of the two others one is new and one is asked before it.
    expect(result).toMatchObject({ questions: 1, questions_new: 1, questions_warm: 1 });
    // One chunk per size (30 turns, then 60 more), both embedded by the worker.
    expect(result).toMatchObject({ model_sample: 4, model_rss_mb: expect.any(Number), base_rss_mb: expect.any(Number), embedded_ahead: { chunks: 2, failed: 0 } });
    // `gllam bench` runs long: it started again keeping freed memory (src/cli/allocator.ts), and says so.
    expect(result.mimalloc_purge_delay).toBe(process.env.MIMALLOC_PURGE_DELAY ?? "-1");
    for (const row of result.sizes) {
      expect(Object.keys(row).sort()).toEqual([
        "db_bytes", "episodes", "ingest_peak_rss_mb", "ingest_turns_per_cpu_s", "ingest_turns_per_s", "knn_exact_p50_ms", "knn_exact_recall_at_10", "knn_k100_p50_ms", "knn_overlap_at_10", "knn_p50_ms",
        "knn_recall_at_10", "lexical_p50_ms", "model_recall_p50_ms", "peak_rss_mb", "query_peak_rss_mb", "recall_again_p50_ms", "recall_again_p95_ms", "recall_new_p50_ms", "recall_new_p95_ms", "recall_p50_ms", "recall_p95_ms",
        "rss_anon_mb", "rss_file_mb",
      ]);
      expect(row.model_recall_p50_ms).toBeGreaterThan(0);
      expect(row.recall_new_p50_ms).toBeGreaterThan(0);
      expect(row.peak_rss_mb).toBeGreaterThanOrEqual(Math.max(row.ingest_peak_rss_mb, row.query_peak_rss_mb));
    }
    expect(readFileSync(join(dir, "out.svg"), "utf8")).toStartWith("<svg");
  });

  test("--continue grows a file the benchmark built to the same turns as one built in one go, and refuses any other file", () => {
    const dir = makeTempDir();
    const data = writeLocomo(dir, QUESTIONS.slice(0, 1));
    const benchOn = (file: string, ...args: string[]) => runGllam(["bench", "scale", "--data", file, "--queries", "1", "--warm", "0", "--model-sample", "0", ...args]);
    const bench = (...args: string[]) => benchOn(data, ...args);
    const turnsOf = (db: string) => {
      const file = new Database(db, { readonly: true });
      try {
        return file.query("SELECT session_id, seq, speaker, content, metadata FROM episodes ORDER BY id").all();
      } finally {
        file.close();
      }
    };
    const [grown, whole] = [join(dir, "grown.db"), join(dir, "whole.db")];
    expect(bench("--sizes", "30", "--db", grown).code).toBe(0);
    const continued = bench("--sizes", "50,70", "--db", grown, "--continue");
    expect(continued.stderr).not.toContain("rror");
    expect(JSON.parse(continued.stdout)).toMatchObject({ sizes: [{ episodes: 50 }, { episodes: 70 }], process_per_size: false });
    expect(bench("--sizes", "70", "--db", whole).code).toBe(0);
    expect(turnsOf(grown)).toHaveLength(70);
    expect(turnsOf(grown)).toEqual(turnsOf(whole));

    const refusals: [string[], RegExp][] = [
      [["--sizes", "90", "--db", grown], /exists: the benchmark builds a new file/],
      [["--sizes", "90", "--db", join(dir, "none.db"), "--continue"], /none\.db does not exist/],
      [["--sizes", "60", "--db", grown, "--continue"], /holds 70 turns already/],
    ];
    for (const [args, message] of refusals) {
      const run = bench(...args);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toMatch(message);
    }
    // Other data (the same conversation in capitals): its corpus's turn 70 is not the file's.
    const other = writeLocomo(dir, QUESTIONS.slice(0, 1), "other.json", (text) => text.toUpperCase());
    const mixed = benchOn(other, "--sizes", "90", "--db", grown, "--continue");
    expect(mixed.code).not.toBe(0);
    expect(mixed.stderr).toContain("was not built by `gllam bench scale` from this --data");
    expect(turnsOf(grown)).toEqual(turnsOf(whole));
  });

  test("the compiled binary's ingest runs its static vectors in the worker it embeds (no chunk left to the writer's thread)", async () => {
    const work = makeTempDir();
    const data = writeLocomo(work, QUESTIONS.slice(0, 1));
    const { run, runDir } = installCompiled(await compiledGllam(), join(work, "install"));
    // A process per size: each is the compiled binary again, and their chunks add up.
    const result = run("bench", "scale", "--data", data, "--sizes", "30,60", "--queries", "1", "--model-sample", "0", "--process-per-size", "--json", join(runDir, "out.json"));
    expect(result.stderr).not.toContain("rror");
    expect(result.code).toBe(0);
    expect(JSON.parse(readFileSync(join(runDir, "out.json"), "utf8")).embedded_ahead).toEqual({ chunks: 2, failed: 0 });
  });
});
