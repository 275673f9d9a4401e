import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { version } from "../../package.json";
import { makeTempDir, runGllam } from "../helpers.ts";
import { SCHEMA_VERSION } from "../../src/engine/schema.ts";

const dir = makeTempDir();
const db = join(dir, "cli.db");

describe("gllam CLI, end to end", () => {
  test("seed, then recall prints the assembled context, then stats counts the rows", () => {
    const seeded = runGllam(["seed", "--db", db]);
    expect(seeded.stderr).toBe("");
    expect(seeded.stdout).toMatch(/^seeded .*cli\.db: 10 nodes, 12 new links, 10 vectors/);

    const recalled = runGllam(["recall", "how to deploy caddy", "--entity", "caddy", "--db", db]);
    expect(recalled.code).toBe(0);
    expect(recalled.stdout).toContain("## Caddy (service)");
    expect(recalled.stdout).toContain("Caddy **binds_to** Tailscale — caveat: Must use the Tailscale FQDN");

    const stats = runGllam(["stats", "--json", "--db", db]);
    expect(JSON.parse(stats.stdout)).toMatchObject({
      schemaVersion: SCHEMA_VERSION,
      embeddingDims: 512,
      tables: { semantic_nodes: 10, semantic_links: 12, semantic_embeddings: 10 },
    });
    expect(runGllam(["stats", "--db", db]).stdout).toMatch(/semantic_links\s+12/);
  });

  test("the seed's spellings work: -seed and --recall ... --entity", () => {
    const seedDb = join(dir, "spelling.db");
    expect(runGllam(["-seed"], { env: { DATABASE_PATH: seedDb } }).code).toBe(0);
    const out = runGllam(["--recall", "web server", "--entity", "caddy"], { env: { DATABASE_PATH: seedDb } });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("## Caddy (service)");
  });

  test("recall --json carries the focus, links and distances; unquoted words form the query", () => {
    const out = runGllam(["recall", "web", "server", "-k", "3", "--json", "--db", db]);
    const result = JSON.parse(out.stdout);
    expect(result.query).toBe("web server");
    expect(result.focus[0].node.id).toBe("caddy");
    expect(result.similar).toHaveLength(3);
    expect(result.similar[0].distance).toBeLessThan(result.similar[2].distance);
  });

  test("--version and --help", () => {
    expect(runGllam(["--version"]).stdout).toStartWith(`gllam ${version} dev`); // test/cli/version.test.ts: the rest
    const help = runGllam(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/USAGE gllam \[OPTIONS\] seed\|ingest\|recall\|reembed\|stats\|bench/);
    for (const command of ["seed", "recall", "stats"]) {
      const sub = runGllam([command, "--help"]);
      expect(sub.code).toBe(0);
      expect(sub.stdout).toContain(`gllam ${command}`);
      expect(sub.stdout).toContain("--db");
    }
    expect(runGllam(["help", "recall"]).stdout).toContain("--entity");
  });

  test.each([
    ["an unknown flag", ["recall", "x", "--bogus", "--db", db], 2, /^gllam: unknown flag --bogus for `gllam recall`.*\[E_USAGE\]$/],
    ["an unknown command", ["frobnicate"], 2, /^gllam: unknown command "frobnicate".*\[E_USAGE\]$/],
    ["a missing query", ["recall", "--db", db], 2, /QUERY.*\[E_USAGE\]$/],
    ["an empty query", ["recall", "", "--db", db], 1, /^gllam: invalid recall input: query: must not be empty \[E_BAD_INPUT\]$/],
    ["a bad -k", ["recall", "x", "-k", "many", "--db", db], 1, /invalid recall input: k: must be an integer in 1..100/],
    ["a missing database", ["recall", "x", "--db", join(dir, "none.db")], 1, /^gllam: no database at .*none\.db/],
    ["an unreachable embeddings server", ["seed", "--db", join(dir, "remote.db"), "--embeddings-server", "http://127.0.0.1:9/v1"], 1, /http:\/\/127\.0\.0\.1:9\/v1\/embeddings is unreachable/],
  ])("%s: one clear line, non-zero exit", (_name, args, code, message) => {
    const out = runGllam(args);
    expect(out.code).toBe(code);
    expect(out.stdout).toBe("");
    expect(out.stderr.trim().split("\n")).toHaveLength(1);
    expect(out.stderr.trim()).toMatch(message);
  });

  test("vectors from another model: recall answers without them and says so, without calling the other model", () => {
    const out = runGllam(["recall", "caddy", "--db", db, "--embeddings-server", "http://127.0.0.1:9/v1"]);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/> Warning: stored vectors come from use-lite.*the active embedder is http:127\.0\.0\.1:9\/v1: recalled by static vectors and words only \(run `gllam reembed`\)/);
  });

  test("--debug adds the stack trace", () => {
    const out = runGllam(["recall", "", "--db", db, "--debug"]);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("query: must not be empty");
    expect(out.stderr).toMatch(/\n\s+at /);
  });

  test("a file that is not a database is refused and left as it was", () => {
    const notes = join(dir, "notes.txt");
    writeFileSync(notes, "shopping list\n");
    for (const command of ["seed", "stats"]) {
      const out = runGllam([command, "--db", notes]);
      expect(out.code).toBe(1);
      expect(out.stderr).toMatch(/is not a SQLite database \(wrong file header\) \[E_NOT_SQLITE\]/);
    }
    expect(readFileSync(notes, "utf8")).toBe("shopping list\n");
  });
});
