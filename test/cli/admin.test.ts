import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir, REPO_ROOT, runGllam } from "../helpers.ts";

const dir = makeTempDir();
const gllam = (args: string[]) => runGllam([...args, "--embedder", "static"]);
const seeded = (name: string) => {
  const db = join(dir, name);
  expect(gllam(["seed", "--db", db]).code).toBe(0);
  return db;
};

describe("gllam export / import", () => {
  test("export --out, import into a new file, export to stdout: the same bytes", () => {
    const db = seeded("source.db");
    expect(gllam(["fact", "add", "Laptop", "owned_by", "Ann", "--scope", "work", "--db", db]).code).toBe(0);
    const file = join(dir, "memory.jsonl");
    const exported = gllam(["export", "--out", file, "--db", db]);
    expect(exported.stderr).toBe("");
    expect(exported.stdout).toMatch(/^exported 25 records \(node 12, link 13\) from every scope to .*memory\.jsonl\n$/);
    const copy = join(dir, "copy.db");
    const imported = gllam(["import", file, "--db", copy]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(/^imported .*memory\.jsonl into .*copy\.db: node 12, link 13 \(scopes: default, work\)\n/);
    const again = gllam(["export", "--db", copy]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(readFileSync(file, "utf8"));
    expect(gllam(["export", "--scope", "work", "--db", copy]).stdout.trimEnd().split("\n")).toHaveLength(4);
  });

  test.each([
    ["a bad line", (file: string) => writeFileSync(file, `${readFileSync(join(dir, "memory.jsonl"), "utf8").split("\n").slice(0, 2).join("\n")}\n{"record":"node",\n`), /^gllam: .*bad\.jsonl:3: invalid JSON .*\[E_BAD_INPUT\]$/],
    ["a missing file", () => {}, /^gllam: no file at .*bad\.jsonl \[E_NOT_FOUND\]$/],
  ])("%s: one line naming it, exit 1, nothing written", (_name, make, message) => {
    const file = join(dir, `bad-${Math.random().toString(36).slice(2)}`, "bad.jsonl");
    Bun.spawnSync(["mkdir", "-p", join(file, "..")]);
    make(file);
    const target = join(dir, `target-${Math.random().toString(36).slice(2)}.db`);
    const out = gllam(["import", file, "--db", target]);
    expect(out.code).toBe(1);
    expect(out.stderr.trim()).toMatch(message);
    expect(JSON.parse(gllam(["stats", "--json", "--db", target]).stdout).tables.semantic_nodes).toBe(0);
  });

  test("--out into a missing folder: E_CANNOT_OPEN, nothing left behind", () => {
    const out = gllam(["export", "--out", join(dir, "nowhere", "x.jsonl"), "--db", join(dir, "source.db")]);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/cannot write the export to .*x\.jsonl: folder .*nowhere does not exist \[E_CANNOT_OPEN\]/);
  });
});

describe("gllam backup", () => {
  test("a consistent copy while another process writes; an existing OUT only with --force", async () => {
    const db = seeded("busy.db");
    const writer = Bun.spawn(["bun", join(REPO_ROOT, "test/fixtures/keep-writing.ts"), db], { stdout: "pipe", stderr: "pipe" });
    try {
      const reader = writer.stdout.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe("writing\n");
      const out = join(dir, "busy-copy.db");
      const backup = gllam(["backup", out, "--db", db]);
      expect(backup.stderr).toBe("");
      expect(backup.stdout).toMatch(/^backed up to .*busy-copy\.db: \d+\.\d MiB in \d+\.\d\d s\n$/);
      const copy = new Database(out, { readonly: true });
      expect(copy.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
      const written = (copy.query("SELECT count(*) AS n FROM episodes").get() as { n: number }).n;
      copy.close();
      expect(written).toBeGreaterThan(0);
      const checks = JSON.parse(gllam(["doctor", "--json", "--db", out]).stdout).checks;
      for (const name of ["integrity", "full-text index", "references"]) expect(checks.find((check: { name: string }) => check.name === name).ok).toBe(true);

      const refused = gllam(["backup", out, "--db", db]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/busy-copy\.db exists: choose another file, or --force to replace it \[E_CONFLICT\]/);
      expect(gllam(["backup", out, "--force", "--db", db]).code).toBe(0);
      const replaced = new Database(out, { readonly: true });
      expect((replaced.query("SELECT count(*) AS n FROM episodes").get() as { n: number }).n).toBeGreaterThan(written);
      replaced.close();
    } finally {
      writer.kill();
      await writer.exited;
    }
  });

  test("a file with 4 KB pages is copied with 16 KB pages, everything in it", () => {
    const db = join(dir, "small-pages.db");
    const made = new Database(db);
    made.run("PRAGMA page_size = 4096");
    made.run("PRAGMA journal_mode = WAL");
    made.close();
    expect(gllam(["seed", "--db", db]).code).toBe(0);
    expect(gllam(["fact", "add", "Laptop", "owned_by", "Ann", "--db", db]).code).toBe(0);
    const out = join(dir, "small-pages-copy.db");
    expect(gllam(["backup", out, "--db", db]).code).toBe(0);
    const pageSize = (path: string) => {
      const file = new Database(path, { readonly: true });
      try {
        return (file.query("PRAGMA page_size").get() as { page_size: number }).page_size;
      } finally {
        file.close();
      }
    };
    expect(pageSize(db)).toBe(4096);
    expect(pageSize(out)).toBe(16_384);
    expect(gllam(["export", "--db", out]).stdout).toBe(gllam(["export", "--db", db]).stdout);
  });
});

describe("gllam doctor", () => {
  const doctor = (db: string, ...args: string[]) => gllam(["doctor", "--db", db, ...args]);

  test("a healthy file: every check ok, exit 0", () => {
    const out = doctor(seeded("healthy.db"));
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/ok {3}integrity: PRAGMA integrity_check: ok\nok {3}full-text index: 0 episodes indexed\nok {3}references: /);
    expect(out.stdout).toMatch(/\nhealthy\n$/);
  });

  /** A seeded copy broken by `breakIt` (with foreign keys off, as a careless tool would). */
  const broken = (name: string, breakIt: (db: Database, path: string) => void) => {
    const path = seeded(name);
    const db = new Database(path);
    db.run("PRAGMA foreign_keys = OFF");
    breakIt(db, path);
    db.close();
    return path;
  };

  test.each<[string, (db: Database, path: string) => void, RegExp]>([
    [
      "a dangling reference",
      (db) => db.run("DELETE FROM semantic_nodes WHERE id = 'gitea'"),
      /references: 2 semantic_links row\(s\) point at missing semantic_nodes rows \(rowid 5, 12\)\n {2}fix: `gllam forget link 5`, `gllam forget link 12`\n\nreferences: 1 semantic_node_names row\(s\) point at missing semantic_nodes rows\n {2}fix: delete them: `sqlite3 FILE "DELETE FROM semantic_node_names WHERE node_id NOT IN \(SELECT id FROM semantic_nodes\)"`/,
    ],
    [
      "an interrupted ingest",
      (db) =>
        db.run(
          `INSERT INTO maintenance_jobs (kind, scope, params, state, status, started_at, updated_at) VALUES ('ingest', 'work', '{"path":"/data/chat.jsonl","format":"jsonl","session":null}', '{"done":5000}', 'running', 1000, 2000)`,
        ),
      /jobs: ingest job 1 \(scope work\) stopped at 1970-01-01T00:00:02\.000Z without finishing\n {2}fix: `gllam ingest \/data\/chat\.jsonl --format jsonl --scope work` finishes it/,
    ],
    [
      "a full-text index out of step",
      (db) => {
        db.run("INSERT INTO sessions (scope, id, created_at) VALUES ('default', 's', 0)");
        db.run("INSERT INTO episodes (scope, session_id, seq, content, content_hash, created_at) VALUES ('default', 's', 0, 'hello', 'h', 0)");
        db.run("DELETE FROM episodes_fts WHERE rowid = 1");
      },
      /full-text index: the full-text index holds 0 rows for 1 episodes\n {2}fix: restore the latest `gllam backup`, or rebuild .*`gllam export --out memory\.jsonl`, then `gllam import memory\.jsonl --db NEW\.db`/,
    ],
    [
      "a corrupted page (in a copy)",
      (db, path) => {
        const { rootpage } = db.query<{ rootpage: number }, []>("SELECT rootpage FROM sqlite_schema WHERE name = 'idx_semantic_links_target'").get()!;
        const { page_size } = db.query<{ page_size: number }, []>("PRAGMA page_size").get()!;
        db.run("PRAGMA wal_checkpoint(TRUNCATE)");
        const fd = openSync(path, "r+");
        writeSync(fd, Buffer.alloc(page_size, 0x5a), 0, page_size, (rootpage - 1) * page_size);
        closeSync(fd);
      },
      /integrity: .*\n {2}fix: restore the latest `gllam backup`/,
    ],
  ])("%s: a finding with the command that fixes it, exit 1", (name, breakIt, finding) => {
    const path = broken(`${name.replace(/\W+/g, "-")}.db`, breakIt);
    const out = doctor(path);
    expect(out.stderr).toBe("");
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(finding);
    expect(out.stdout).toMatch(/\n\d+ finding\(s\)\n$/);
  });

  test("vectors of another model, and episodes waiting for model vectors: reembed", () => {
    const db = join(dir, "drift.db");
    writeFileSync(join(dir, "turns.jsonl"), JSON.stringify({ session_id: "s", content: "a turn waiting for its vector" }));
    expect(runGllam(["ingest", join(dir, "turns.jsonl"), "--db", db]).code).toBe(0);
    const queued = runGllam(["doctor", "--db", db, "--json"]);
    expect(queued.code).toBe(1);
    expect(JSON.parse(queued.stdout).findings).toEqual([{ check: "vector queues", problem: expect.stringMatching(/^1 episode\(s\) and 0 node\(s\) wait for a model vector/), fix: "`gllam reembed`" }]);
    expect(runGllam(["seed", "--db", db]).code).toBe(0);
    const drift = doctor(db);
    expect(drift.code).toBe(1);
    expect(drift.stdout).toMatch(/embedding drift: stored vectors come from use-lite-512.*, the active embedder is static-.*\n {2}fix: `gllam reembed`/);
  });
});
