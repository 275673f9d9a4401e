import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Gllam } from "../../src/gllam/gllam.ts";
import { Store } from "../../src/engine/store.ts";
import { tinyEmbedder } from "../semantic/fixtures.ts";
import { initSchema } from "../../src/engine/schema.ts";
import { expectGllamError, makeTempDir, REPO_ROOT, runGllam } from "../helpers.ts";

const dir = makeTempDir();
let n = 0;

/** Another process holding the file's write lock for `ms`; resolves once it holds it. */
async function holdWriteLock(path: string, ms: number): Promise<Bun.Subprocess> {
  const proc = Bun.spawn(["bun", join(REPO_ROOT, "test/fixtures/hold-write-lock.ts"), path, String(ms)], { stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  const { value } = await reader.read();
  expect(new TextDecoder().decode(value)).toBe("locked\n");
  reader.releaseLock();
  return proc;
}

async function freshStore(): Promise<Store> {
  const store = await Store.open(join(dir, `busy-${++n}.db`));
  initSchema(store.db());
  return store;
}

const insert = (store: Store, key: string) => store.transaction(() => store.db().run("INSERT INTO system_metadata (key, value, updated_at) VALUES (?, 'v', 0)", [key]));

describe("a write transaction waits for another process's", () => {
  test("it waits, telling onWait once, then commits", async () => {
    const store = await freshStore();
    const waits: number[] = [];
    store.setBusyWait({ timeoutMs: 20_000, onWait: ({ timeoutMs }) => waits.push(timeoutMs) });
    const holder = await holdWriteLock(store.path, 1500);
    const started = Date.now();
    insert(store, "after-wait");
    expect(Date.now() - started).toBeGreaterThan(1000);
    expect(waits).toEqual([20_000]);
    expect(await holder.exited).toBe(0);
    expect(store.dbRO().query("SELECT count(*) AS n FROM system_metadata WHERE key = 'after-wait'").get()).toEqual({ n: 1 });
    store.close();
  });

  test("past the busy timeout it fails with E_BUSY, having written nothing", async () => {
    const store = await freshStore();
    store.setBusyWait({ timeoutMs: 300 });
    const holder = await holdWriteLock(store.path, 3000);
    const started = Date.now();
    await expectGllamError(() => insert(store, "never"), "E_BUSY", /another process kept the database locked for \d+\.\d s; gave up waiting \(raise --busy-timeout or \$GLLAM_BUSY_TIMEOUT\)/);
    expect(Date.now() - started).toBeLessThan(2500);
    holder.kill();
    await holder.exited;
    expect(store.db().inTransaction).toBe(false);
    insert(store, "later");
    store.close();
  });

  test("a bad busy timeout is refused", async () => {
    const store = await freshStore();
    await expectGllamError(() => store.setBusyWait({ timeoutMs: -1 }), "E_BAD_INPUT", /invalid busy timeout/);
    store.close();
  });

  test("the CLI: --busy-timeout and $GLLAM_BUSY_TIMEOUT set it (seconds); a command waits with a message, or gives up", async () => {
    const db = join(dir, "cli.db");
    expect(runGllam(["seed", "--db", db, "--embedder", "static"]).code).toBe(0);
    expect(runGllam(["fact", "add", "a", "b", "c", "--db", db, "--busy-timeout", "soon"]).stderr).toMatch(/invalid busy timeout \(--busy-timeout\): .*must be a number of seconds \[E_BAD_INPUT\]/);
    expect(runGllam(["fact", "add", "a", "b", "c", "--db", db], { env: { GLLAM_BUSY_TIMEOUT: "-3" } }).stderr).toMatch(/invalid environment: GLLAM_BUSY_TIMEOUT: must not be negative \[E_CONFIG\]/);

    const holder = await holdWriteLock(db, 3000);
    const gaveUp = runGllam(["fact", "add", "Caddy", "runs_on", "nas", "--db", db, "--embedder", "static", "--busy-timeout", "0.5"]);
    expect(gaveUp.code).toBe(1);
    expect(gaveUp.stderr).toMatch(/cli\.db: another process kept the database locked for 0\.\d s; gave up waiting .*\[E_BUSY\]/);
    await holder.exited;

    // Longer than SQLite's own 5 s busy timeout, where a second writer used to fail.
    const longer = await holdWriteLock(db, 6000);
    const waited = Bun.spawn(["bun", join(REPO_ROOT, "src/cli/main.ts"), "fact", "add", "Caddy", "runs_on", "nas", "--db", db, "--embedder", "static"], { env: { ...process.env }, stdout: "pipe", stderr: "pipe" });
    expect(await waited.exited).toBe(0);
    expect(await new Response(waited.stderr).text()).toBe("gllam: waiting for another writer (up to 60 s)...\n");
    expect(await new Response(waited.stdout).text()).toMatch(/inserted link/);
    await longer.exited;
  });
});

test("a write after another connection changed the schema (its first static vectors) sees the new schema", async () => {
  const path = join(dir, "schema-change.db");
  const first = await Gllam.open(path, { embedder: tinyEmbedder });
  const second = await Gllam.open(path, { embedder: tinyEmbedder });
  first.addEpisodes([{ sessionId: "s", seq: 0, content: "written first, with the file's first static vectors" }]);
  expect(second.addEpisodes([{ sessionId: "s", seq: 1, content: "written second" }]).inserted).toBe(1);
  first.close();
  second.close();
});
