import { describe, expect, test } from "bun:test";
import { join } from "node:path";
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
