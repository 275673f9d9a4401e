import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readTableBytes } from "../../../src/embed/static/bundled-table.ts";
import { compiledGllam } from "../../binary-build.ts";
import { makeTempDir } from "../../helpers.ts";

/** The test table (test/setup.ts names it in GLLAM_STATIC_TABLE). */
const TEST_TABLE = process.env.GLLAM_STATIC_TABLE!;
/** Whether this process maps the file (Linux lists its mappings). */
const isMapped = (path: string) => readFileSync("/proc/self/maps", "utf8").includes(path);

describe("reading the static table", () => {
  test.skipIf(process.platform !== "linux")("a table in the cache folder is mapped, not copied; one named by the user is read", () => {
    const cache = makeTempDir();
    const inCache = join(cache, "gllam", "static-table-test.bin");
    mkdirSync(join(cache, "gllam"));
    copyFileSync(TEST_TABLE, inCache);
    const elsewhere = join(makeTempDir(), "mine.bin");
    copyFileSync(TEST_TABLE, elsewhere);
    const previous = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = cache;
    try {
      const mapped = readTableBytes(inCache);
      const read = readTableBytes(elsewhere);
      expect(isMapped(inCache)).toBe(true);
      expect(isMapped(elsewhere)).toBe(false);
      const expected = readFileSync(TEST_TABLE);
      expect(Buffer.from(mapped).equals(expected)).toBe(true);
      expect(Buffer.from(read).equals(expected)).toBe(true);
    } finally {
      if (previous === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = previous;
    }
  });

  test("the executable copies its table to the cache folder once and maps the copy; with no cache folder it reads its own", async () => {
    const gllam = await compiledGllam();
    const dir = makeTempDir();
    const db = join(dir, "memory.db");
    const cache = join(dir, "cache");
    // Without GLLAM_STATIC_TABLE the executable's own table (the test table, embedded by the build) is used.
    const { GLLAM_STATIC_TABLE: _, ...inherited } = process.env;
    const run = (args: string[], env: Record<string, string>) => {
      const proc = Bun.spawnSync([gllam, ...args, "--db", db, "--embedder", "static"], { env: { ...inherited, ...env }, stdout: "pipe", stderr: "pipe" });
      expect(proc.stderr.toString()).not.toContain("gllam:");
      expect(proc.exitCode).toBe(0);
      return proc.stdout.toString();
    };
    run(["seed"], { XDG_CACHE_HOME: cache });
    const copies = readdirSync(join(cache, "gllam")).filter((name) => name.startsWith("static-table-embedded-"));
    expect(copies).toHaveLength(1);
    const copy = join(cache, "gllam", copies[0]!);
    expect(readFileSync(copy).equals(readFileSync(TEST_TABLE))).toBe(true);
    const written = statSync(copy).mtimeMs;

    const recalled = run(["recall", "which reverse proxy serves the home lab"], { XDG_CACHE_HOME: cache });
    expect(recalled).toContain("Caddy");
    expect(statSync(copy).mtimeMs).toBe(written);

    // No folder takes the copy (a folder stands where it goes; the temp folder lies under a file):
    // the same answer, from the executable's own table.
    rmSync(copy);
    mkdirSync(copy);
    const blocker = join(dir, "not-a-folder");
    writeFileSync(blocker, "");
    expect(run(["recall", "which reverse proxy serves the home lab"], { XDG_CACHE_HOME: cache, TMPDIR: blocker })).toBe(recalled);
    expect(statSync(copy).isDirectory()).toBe(true);
  });
});
