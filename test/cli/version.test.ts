import { expect, test } from "bun:test";
import { version } from "../../package.json";
import { formatVersion } from "../../src/cli/version.ts";
import { REPO_ROOT, runGllam } from "../helpers.ts";

test.each([
  [{ target: "darwin-arm64", commit: "0123456789ab", date: "2025-01-02T03:04:05Z" }, undefined, "gllam 1.2.3 darwin-arm64 (commit 0123456789ab, built 2025-01-02T03:04:05Z)"],
  [undefined, "0123456789ab", "gllam 1.2.3 dev (commit 0123456789ab)"],
  [undefined, undefined, "gllam 1.2.3 dev"],
])("formatVersion(%j, %j)", (build, commit, line) => {
  expect(formatVersion("1.2.3", build, commit)).toBe(line);
});

test("a source checkout says dev and its commit", () => {
  const head = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: REPO_ROOT }).stdout.toString().trim();
  expect(runGllam(["--version"]).stdout).toBe(`gllam ${version} dev (commit ${head})\n`);
});
