import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { version } from "../../package.json";
import { buildDate } from "../../scripts/build.ts";
import { targetName } from "../../src/engine/vec-extension.ts";
import { makeTempDir, REPO_ROOT } from "../helpers.ts";
import { expectSeedAndRecall, installCompiled } from "./compiled.ts";

/**
 * `bun run build` makes one executable for this machine; two builds of the same tree are the same
 * bytes. (test/scripts/release.test.ts runs the full smoke test on the release's linux-x64 binary,
 * built by the same compileGllam.)
 */
describe("bun run build", () => {
  const work = makeTempDir("gllam-binary-");
  const build = (outfile: string) =>
    // The test static table (GLLAM_STATIC_TABLE, set by test/setup.ts) goes into the binary: a fresh
    // machine would otherwise distil the full table first. Bun.spawn does not pass on process.env changes.
    Bun.spawnSync(["bun", "scripts/build.ts", outfile], { cwd: REPO_ROOT, env: { ...process.env }, stdout: "pipe", stderr: "pipe" });

  test("an executable that says what it is, seeds and recalls from a folder outside the repo, and builds again to the same bytes", () => {
    const first = join(work, "one", "gllam");
    const built = build(first);
    expect(built.stderr.toString()).toBe("");
    expect(built.exitCode).toBe(0);
    expect(build(join(work, "two", "gllam")).exitCode).toBe(0);
    expect(Bun.hash(readFileSync(join(work, "two", "gllam")))).toBe(Bun.hash(readFileSync(first)));

    const { run, runDir, extractedLibrary } = installCompiled(first, join(work, "run"));
    const head = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: REPO_ROOT }).stdout.toString().trim();
    expect(run("--version").stdout).toMatch(new RegExp(`^gllam ${version} ${targetName()} \\(commit ${head}(-dirty)?, built \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\)\\n$`));
    expectSeedAndRecall(run, runDir);
    expect(extractedLibrary("vec0.so")).toBeDefined();
  });
});

describe("buildDate", () => {
  const now = new Date("2025-06-01T12:00:00.750Z");
  test.each([
    ["SOURCE_DATE_EPOCH first", "1700000000", "1600000000", "2023-11-14T22:13:20.000Z"],
    ["else the commit's date", undefined, "1600000000", "2020-09-13T12:26:40.000Z"],
    ["a SOURCE_DATE_EPOCH that is no number is ignored", "yesterday", "1600000000", "2020-09-13T12:26:40.000Z"],
    ["else now, in whole seconds", undefined, undefined, "2025-06-01T12:00:00.000Z"],
  ])("%s", (_, sourceDateEpoch, commitEpoch, expected) => {
    expect(buildDate(sourceDateEpoch, commitEpoch, now).toISOString()).toBe(expected);
  });
});
