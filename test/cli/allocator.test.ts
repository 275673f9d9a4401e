/** Long-running commands start again with Bun's allocator keeping freed memory (src/cli/allocator.ts). */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { restartArgv, runsLong } from "../../src/cli/allocator.ts";
import { call, freshFolder, startServe } from "../server/http/serve-process.ts";

describe("runsLong", () => {
  test.each([
    [["serve", "--db", "x.db"], false, true],
    [["--db", "x.db", "mcp"], false, true],
    [["ingest", "a.jsonl"], false, true],
    [["bench", "scale", "--sizes", "10000"], false, true],
    [["repl"], false, true],
    [["recall", "serve"], true, false],
    [["--recall", "who?"], true, false],
    [["stats"], true, false],
    [["fact", "add", "A", "rel", "B"], false, false],
    [[], true, true],
    [["--db", "x.db"], true, true],
    [[], false, false],
    [["--help"], true, false],
    [["--version"], true, false],
  ])("%j at a terminal %p: %p", (argv, atTerminal, expected) => {
    expect(runsLong(argv, atTerminal)).toBe(expected);
  });
});

describe("restartArgv", () => {
  test("from source, bun takes its own flags, then the entry point and the arguments", () => {
    expect(restartArgv(["/usr/bin/bun", "/src/cli/main.ts"], ["--smol"], ["serve", "--port", "0"])).toEqual(["/usr/bin/bun", "--smol", "/src/cli/main.ts", "serve", "--port", "0"]);
  });
  test("a compiled binary takes the arguments alone (its entry point and flags are inside it)", () => {
    expect(restartArgv(["/opt/gllam"], ["--smol"], ["serve"])).toEqual(["/opt/gllam", "serve"]);
  });
});

/** The variables of a running process, read from /proc. */
const environOf = (pid: number): string[] => readFileSync(`/proc/${pid}/environ`, "latin1").split("\0");

describe("gllam serve from the compiled binary", () => {
  test("runs as the process that was started (same pid), with freed memory kept, and serves", async () => {
    const served = await startServe(["--db", "memory.db", "--embedder", "static", "--workers", "0"]);
    try {
      expect(environOf(served.pid)).toContain("MIMALLOC_PURGE_DELAY=-1");
      expect((await call(served, "GET", "/health")).status).toBe(200);
    } finally {
      expect(await served.stop()).toBe(0);
    }
  });

  test("leaves a value the user set alone", async () => {
    const where = freshFolder();
    const served = await startServe(["--db", "memory.db", "--embedder", "static", "--workers", "0"], { ...where, env: { ...where.env, MIMALLOC_PURGE_DELAY: "100" } });
    try {
      const environ = environOf(served.pid);
      expect(environ).toContain("MIMALLOC_PURGE_DELAY=100");
      expect(environ).not.toContain("MIMALLOC_PURGE_DELAY=-1");
    } finally {
      await served.stop();
    }
  });
});
