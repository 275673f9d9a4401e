import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startCheckpointer, walFrames } from "../../src/engine/checkpointer.ts";
import { ingestFiles, parseUnits, writeBatches } from "../../src/episodic/ingest.ts";
import type { IngestUnit } from "../../src/episodic/formats/source.ts";
import type { Gllam } from "../../src/gllam/gllam.ts";
import { tinyEmbedder } from "../semantic/fixtures.ts";
import { makeTempDir, openTempGllam } from "../helpers.ts";

const dir = makeTempDir();
// Five 5,000-turn chunks; with a threshold of 300 pages (~1.2 MB) every other chunk or so passes it.
const TURNS = 25_000;
const THRESHOLD = 300;
const FILE = join(dir, "turns.jsonl");
writeFileSync(
  FILE,
  Array.from({ length: TURNS }, (_, i) => JSON.stringify({ session_id: `s${i % 40}`, speaker: i % 2 ? "Ann" : "Bob", content: `turn ${i}: the ferry to Tangier leaves at ${i % 24} with ${i % 7} bags` })).join("\n"),
);

const stored = (gllam: Gllam) => ({
  episodes: gllam.db().query("SELECT id, scope, session_id, seq, speaker, content, content_hash FROM episodes ORDER BY id").all(),
  fts: gllam.db().query("SELECT rowid FROM episodes_fts WHERE episodes_fts MATCH 'ferry AND bags' ORDER BY rank, rowid LIMIT 200").all(),
});

/** Ingests FILE, noting the WAL's frames after each chunk. */
async function ingestNoting(gllam: Gllam, onChunk: (done: number) => void = () => {}) {
  const frames: number[] = [];
  const report = await ingestFiles(gllam.store, [FILE], { checkpointPages: THRESHOLD }, (done) => {
    frames.push(walFrames(gllam.path));
    onChunk(done);
  });
  return { report, frames };
}

describe("checkpoints on the second core during an ingest", () => {
  test("the WAL restarts and stays bounded over a multi-chunk ingest, with the same rows as without the checkpointer", async () => {
    const gllam = await openTempGllam(dir, { embedder: tinyEmbedder });
    const { report, frames } = await ingestNoting(gllam);
    expect(report.inserted).toBe(TURNS);
    expect(frames.length).toBeGreaterThanOrEqual(TURNS / 5000);
    expect(gllam.db().query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });

    // A replicator's file: no checkpointer, auto-checkpoint off, so the WAL only grows, by each
    // chunk's frames (the same pages are written either way).
    const external = await openTempGllam(dir, { embedder: tinyEmbedder, checkpoints: "external" });
    expect(startCheckpointer(external.store, { thresholdPages: THRESHOLD })).toBeUndefined();
    const unmanaged = await ingestNoting(external);
    expect(unmanaged.frames).toEqual([...unmanaged.frames].sort((a, b) => a - b));
    const largestChunk = Math.max(...unmanaged.frames.map((n, i) => n - (unmanaged.frames[i - 1] ?? 0)));
    // With the checkpointer: started past the threshold, the worker copies the WAL while the next
    // chunk is written, the writer then copies that chunk's frames and the next write restarts it.
    expect(Math.max(...frames)).toBeLessThanOrEqual(THRESHOLD + 2 * largestChunk);
    expect(Math.max(...frames)).toBeLessThan(unmanaged.frames.at(-1)! / 2);
    expect(stored(gllam)).toEqual(stored(external));
    gllam.close();
    external.close();
  });

  test("another process opens the file mid-ingest and reads every committed chunk, consistently", async () => {
    const gllam = await openTempGllam(dir, { embedder: tinyEmbedder });
    const seen: { done: number; episodes: number; fts: number; check: string }[] = [];
    const script = `const { Database } = require("bun:sqlite"); const db = new Database(process.argv[1], { readonly: true });
      db.run("BEGIN"); const e = db.query("SELECT count(*) n FROM episodes").get().n; const f = db.query("SELECT count(*) n FROM episodes_fts").get().n;
      const c = db.query("PRAGMA quick_check").get().quick_check; db.run("COMMIT"); console.log(JSON.stringify({ episodes: e, fts: f, check: c }));`;
    await ingestNoting(gllam, (done) => {
      const child = Bun.spawnSync(["bun", "-e", script, gllam.path], { stderr: "pipe" });
      expect(child.stderr.toString()).toBe("");
      seen.push({ done, ...JSON.parse(child.stdout.toString()) });
    });
    expect(seen).toEqual(seen.map(({ done }) => ({ done, episodes: done, fts: done, check: "ok" })));
    gllam.close();
  });

  test("a checkpointer whose connection cannot open leaves the checkpoints to the writer: every chunk stored, the WAL still bounded", async () => {
    const gllam = await openTempGllam(dir, { embedder: tinyEmbedder });
    const checkpointer = startCheckpointer(gllam.store, { thresholdPages: 700, path: join(dir, "missing", "no.db") })!;
    const units: IngestUnit[] = Array.from({ length: 5 }, (_, c) => ({
      key: `k${c}`,
      sessions: [],
      episodes: Array.from({ length: 2000 }, (_, j) => ({ sessionId: `k${c}`, seq: j, speaker: "Ann", content: `chunk ${c} turn ${j}: rain on the harbour ${j % 13}` })),
    }));
    const frames: number[] = [];
    try {
      for (const unit of units) {
        writeBatches(gllam.store, parseUnits([unit]), { checkpointer });
        await checkpointer.afterCommit();
        frames.push(walFrames(gllam.path));
      }
    } finally {
      await checkpointer.close();
    }
    expect(checkpointer).toMatchObject({ failed: true, runs: 0 });
    expect(gllam.stats().tables.episodes).toBe(10_000);
    expect(frames.some((n, i) => i > 0 && n < frames[i - 1]!)).toBe(true);
    expect(gllam.db().query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    gllam.close();
  });
});
