import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { makeTempDir, REPO_ROOT, runGllam } from "../helpers.ts";

const dir = makeTempDir();

/** A JSONL conversation of n turns, written in the test's folder. */
async function generate(name: string, turns: number): Promise<string> {
  const path = join(dir, name);
  const writer = Bun.file(path).writer();
  for (let i = 0; i < turns; i++) {
    writer.write(`${JSON.stringify({ session_id: `${name}-${i % 40}`, speaker: i % 2 ? "Ann" : "Bob", content: `${name} turn ${i}: the ferry to Tangier leaves at noon`, timestamp: 1714557600 + i })}\n`);
  }
  await writer.end();
  return path;
}

/** `gllam ...` in a subprocess that runs alongside the test. */
const spawnGllam = (args: string[]) =>
  Bun.spawn(["bun", join(REPO_ROOT, "src/cli/main.ts"), ...args, "--embedder", "static"], { env: { ...process.env }, stdout: "pipe", stderr: "pipe" });
const finished = async (proc: Bun.Subprocess<"ignore", "pipe", "pipe">) => ({ code: await proc.exited, stdout: await new Response(proc.stdout).text(), stderr: await new Response(proc.stderr).text() });

/** Polls the file (read-only) until `ready` says so. */
async function waitFor<T>(db: string, read: (db: Database) => T | undefined, timeoutMs = 60_000): Promise<T> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    try {
      const reader = new Database(db, { readonly: true });
      try {
        const value = read(reader);
        if (value !== undefined) return value;
      } finally {
        reader.close();
      }
    } catch {
      // not created yet
    }
    await Bun.sleep(10);
  }
  throw new Error("timed out waiting for the ingest");
}
const ingestJob = (db: Database) => db.query<{ status: string; state: string }, []>("SELECT status, state FROM maintenance_jobs WHERE kind = 'ingest' ORDER BY id DESC").get() ?? undefined;
const count = (db: string, sql: string) => {
  const reader = new Database(db, { readonly: true });
  try {
    return (reader.query(sql).get() as { n: number }).n;
  } finally {
    reader.close();
  }
};

describe("concurrent writers", () => {
  test("two 60,000-turn ingests into one file both finish, every turn is there, and a fact add during them succeeds", async () => {
    const db = join(dir, "shared.db");
    const [a, b] = await Promise.all([generate("a.jsonl", 60_000), generate("b.jsonl", 60_000)]);
    const first = spawnGllam(["ingest", a, "--db", db]);
    const second = spawnGllam(["ingest", b, "--db", db]);
    // Once either has written something, another command writes too.
    await waitFor(db, (reader) => ((reader.query("SELECT count(*) AS n FROM episodes").get() as { n: number }).n > 0 ? true : undefined));
    const fact = await finished(spawnGllam(["fact", "add", "Caddy", "runs_on", "nas", "--db", db]));
    expect(fact.stderr.replace(/gllam: waiting for another writer \(up to 60 s\)\.\.\.\n/, "")).toBe("");
    expect(fact).toMatchObject({ code: 0 });
    expect(fact.stdout).toMatch(/inserted link/);
    const results = await Promise.all([finished(first), finished(second)]);
    for (const [i, result] of results.entries()) {
      expect(result.stderr.replace(/gllam: waiting for another writer \(up to 60 s\)\.\.\.\n/g, "")).toBe("");
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`${i ? "b" : "a"}.jsonl (jsonl): 60000 new, 0 already stored`);
    }
    expect(count(db, "SELECT count(*) AS n FROM episodes")).toBe(120_000);
    expect(count(db, "SELECT count(*) AS n FROM episodes_fts")).toBe(120_000);
    expect(count(db, "SELECT count(*) AS n FROM maintenance_jobs WHERE kind = 'ingest' AND status = 'done'")).toBe(2);
  });

  test("an ingest killed part-way is finished, exactly once, by running it again; other ingests point at it", async () => {
    const db = join(dir, "killed.db");
    const file = await generate("long.jsonl", 20_000);
    const proc = spawnGllam(["ingest", file, "--db", db]);
    const done = await waitFor(db, (reader) => {
      const state = JSON.parse(ingestJob(reader)?.state ?? "{}");
      return state.done > 0 ? (state.done as number) : undefined;
    });
    proc.kill("SIGKILL");
    await proc.exited;
    const stored = count(db, "SELECT count(*) AS n FROM episodes");
    expect(stored).toBeGreaterThanOrEqual(done);
    expect(stored).toBeLessThan(20_000);
    expect(count(db, "SELECT count(*) AS n FROM maintenance_jobs WHERE kind = 'ingest' AND status = 'running'")).toBe(1);

    // Another ingest says which file is partly stored (once its job has not moved for a minute).
    const stale = new Database(db);
    stale.run("UPDATE maintenance_jobs SET updated_at = updated_at - 120000 WHERE kind = 'ingest'");
    stale.close();
    const other = runGllam(["ingest", await generate("small.jsonl", 3), "--db", db, "--embedder", "static"]);
    expect(other.code).toBe(0);
    expect(other.stderr).toMatch(/gllam: warning: the ingest of .*long\.jsonl stopped after \d+ of 20000 episodes .*`gllam ingest` of the same file finishes it/);

    const again = runGllam(["ingest", file, "--db", db, "--embedder", "static"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`long\\.jsonl \\(jsonl\\): ${20_000 - stored} new, 0 already stored \\(finished an interrupted ingest that had gone through ${stored} of 20000 episodes\\)`));
    expect(count(db, "SELECT count(*) AS n FROM episodes")).toBe(20_003);
    expect(count(db, "SELECT count(*) AS n FROM maintenance_jobs WHERE kind = 'ingest' AND status = 'running'")).toBe(0);
    expect(runGllam(["ingest", file, "--db", db, "--embedder", "static"]).stdout).toContain("0 new, 20000 already stored");
  });
});
