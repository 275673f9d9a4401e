import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PAGE_SIZE } from "../../src/engine/connections.ts";
import { walSizeBytes } from "../../src/engine/wal.ts";
import { INGEST_WAL_BYTES, ingestFiles } from "../../src/episodic/ingest.ts";
import { tinyEmbedder } from "../semantic/fixtures.ts";
import { makeTempDir, openTempGllam } from "../helpers.ts";

const dir = makeTempDir();
const FILES = Array.from({ length: 6 }, (_, f) => {
  const path = join(dir, `bulk-${f}.jsonl`);
  const lines = Array.from({ length: 1500 }, (_, i) =>
    JSON.stringify({ session_id: `s${f}-${i % 20}`, speaker: i % 2 ? "Ann" : "Bob", content: `File ${f} turn ${i}: ${"the ferry to Tangier leaves at noon ".repeat(4)}` }),
  );
  writeFileSync(path, lines.join("\n"));
  return path;
});
const LIMIT = 256 * 1024;

test("bulk ingest runs the WAL checkpoint manager between files, so the WAL does not keep the bulk's size", async () => {
  // Without a manager of its own the engine runs one with the default 64 MiB truncation threshold:
  // the WAL keeps its high-water mark, one file's transaction.
  const plain = await openTempGllam(dir, { embedder: tinyEmbedder });
  await plain.ingestFiles(FILES);
  const highWater = walSizeBytes(plain.path);
  expect(highWater).toBeGreaterThan(LIMIT);
  plain.close();

  const managed = await openTempGllam(dir, { embedder: tinyEmbedder });
  const manager = managed.startWALCheckpointManager(60_000, { truncateAboveBytes: LIMIT });
  const report = await managed.ingestFiles(FILES);
  expect(report.inserted).toBe(6 * 1500);
  // One checkpoint per file (the timer's interval is a minute: these come from ingest itself).
  expect(manager.runs).toBe(FILES.length);
  expect(manager.last).toMatchObject({ busy: false });
  // Each file's WAL is truncated once it is in (above the limit): none is left at the end.
  expect(walSizeBytes(managed.path)).toBe(0);
  expect(managed.stats().tables.episodes).toBe(6 * 1500);
  managed.close();
});

test("an ingest writes with its own page cache and checkpoint threshold, restores both after, and leaves a replicator's checkpoints off", async () => {
  const pragmas = (gllam: Awaited<ReturnType<typeof openTempGllam>>) => ({
    cache: gllam.db().query<{ cache_size: number }, []>("PRAGMA cache_size").get()!.cache_size,
    autocheckpoint: gllam.db().query<{ wal_autocheckpoint: number }, []>("PRAGMA wal_autocheckpoint").get()!.wal_autocheckpoint,
  });
  for (const checkpoints of ["gllam", "external"] as const) {
    const gllam = await openTempGllam(dir, { embedder: tinyEmbedder, checkpoints });
    const before = pragmas(gllam);
    const during: ReturnType<typeof pragmas>[] = [];
    await ingestFiles(gllam.store, FILES.slice(0, 1), {}, () => during.push(pragmas(gllam)));
    expect(during.length).toBeGreaterThan(0);
    // 64 MiB of cache (negative: KiB); auto-checkpoint at 256 MiB of WAL (16,384 pages of 16 KiB), or off as the replicator set it.
    for (const seen of during) expect(seen).toEqual({ cache: -65536, autocheckpoint: checkpoints === "external" ? 0 : INGEST_WAL_BYTES / PAGE_SIZE });
    expect(pragmas(gllam)).toEqual(before);
    expect(before.autocheckpoint).toBe(checkpoints === "external" ? 0 : 1000);
    gllam.close();
  }
});
