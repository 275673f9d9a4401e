import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { readEnv } from "../../src/config/env.ts";
import { Store } from "../../src/engine/store.ts";
import { startWALCheckpointManager, walSizeBytes } from "../../src/engine/wal.ts";
import { expectGllamError, makeTempDir, openTempGllam } from "../helpers.ts";

const dir = makeTempDir();

describe("WAL checkpoints", () => {
  test("checkpointWAL(TRUNCATE) copies every frame back and empties the WAL", async () => {
    const gllam = await openTempGllam(dir);
    gllam.store.transaction(() => {
      for (let i = 0; i < 200; i++) gllam.upsertNode({ id: `n${i}`, name: `Node ${i}`, contextPrompt: "x".repeat(500) });
    });
    expect(walSizeBytes(gllam.path)).toBeGreaterThan(0);
    const result = gllam.checkpointWAL("TRUNCATE");
    expect(result.busy).toBe(false);
    expect(result.checkpointedPages).toBe(result.logPages);
    expect(walSizeBytes(gllam.path)).toBe(0);
    gllam.close();
  });

  test("an unknown mode is refused", async () => {
    const gllam = await openTempGllam(dir);
    await expectGllamError(() => gllam.checkpointWAL("SOMETIMES" as never), "E_BAD_INPUT", /PASSIVE, FULL, RESTART or TRUNCATE/);
    gllam.close();
  });

  test("the checkpoint manager runs on its interval and stops", async () => {
    const gllam = await openTempGllam(dir);
    gllam.upsertNode({ id: "a", name: "A" });
    const manager = gllam.startWALCheckpointManager(20);
    await Bun.sleep(120);
    expect(manager.runs).toBeGreaterThan(0);
    expect(manager.last?.busy).toBe(false);
    manager.stop();
    const runs = manager.runs;
    await Bun.sleep(80);
    expect(manager.runs).toBe(runs);
    gllam.close();
  });

  test("a manager whose database closed under it stops, instead of throwing in its timer", async () => {
    const store = await Store.open(join(dir, "closed-under.db"));
    const manager = startWALCheckpointManager(store.db(), store.path, 10);
    await Bun.sleep(50);
    const runs = manager.runs;
    expect(runs).toBeGreaterThan(0);
    store.close();
    await Bun.sleep(60);
    expect(manager.runs).toBe(runs);
  });
});

describe("checkpoints left to a replicator (GLLAM_CHECKPOINTS=external)", () => {
  test("autocheckpoint is off, and neither ingest, forget nor the servers' manager checkpoints the WAL", async () => {
    const gllam = await openTempGllam(dir, { checkpoints: "external" });
    expect(gllam.db().query<{ wal_autocheckpoint: number }, []>("PRAGMA wal_autocheckpoint").get()?.wal_autocheckpoint).toBe(0);
    const file = join(dir, "turns.jsonl");
    await Bun.write(file, Array.from({ length: 300 }, (_, i) => JSON.stringify({ session_id: "s", content: `turn ${i} ${"words ".repeat(40)}` })).join("\n"));
    await gllam.ingestFiles([file]);
    const grown = walSizeBytes(gllam.path);
    expect(grown).toBeGreaterThan(0);
    const report = gllam.forget({ episode: 1 });
    expect(report.walPurged).toBe(false);
    // The manager `gllam serve` and the MCP server start checkpoints nothing either.
    const manager = gllam.startWALCheckpointManager(10);
    expect(manager.tick()).toBeUndefined();
    expect(manager.runs).toBe(0);
    expect(walSizeBytes(gllam.path)).toBeGreaterThanOrEqual(grown);
    gllam.close();
  });

  test("the default keeps GLLAM's checkpoints; the environment picks the replicator's", async () => {
    const gllam = await openTempGllam(dir);
    expect(gllam.db().query<{ wal_autocheckpoint: number }, []>("PRAGMA wal_autocheckpoint").get()?.wal_autocheckpoint).toBe(1000);
    gllam.close();
    expect(readEnv({ GLLAM_CHECKPOINTS: " External " }).GLLAM_CHECKPOINTS).toBe("external");
    await expectGllamError(() => readEnv({ GLLAM_CHECKPOINTS: "never" }), "E_CONFIG", /GLLAM_CHECKPOINTS.*gllam or external/);
  });
});
