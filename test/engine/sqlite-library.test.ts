import { describe, expect, test } from "bun:test";
import { chooseSqliteLibrary, HOMEBREW_SQLITE } from "../../src/engine/sqlite-library.ts";
import { expectGllamError } from "../helpers.ts";

/** Which SQLite bun:sqlite is pointed at: a pure function of platform, environment and files present. */
const CUSTOM = "/Users/ann lee/sqlite/libsqlite3.dylib";
const choose = (platform: string, arch: string, env: Record<string, string>, files: string[]) =>
  chooseSqliteLibrary({ platform, arch, env, exists: (path) => files.includes(path) });

describe("chooseSqliteLibrary", () => {
  test.each([
    ["linux keeps Bun's own SQLite, whatever is set", "linux", "x64", { GLLAM_SQLITE_LIB: CUSTOM }, [CUSTOM], undefined],
    ["windows keeps Bun's own SQLite", "win32", "x64", {}, [], undefined],
    ["GLLAM_SQLITE_LIB comes first on macOS", "darwin", "arm64", { GLLAM_SQLITE_LIB: CUSTOM }, [CUSTOM, HOMEBREW_SQLITE.arm64], CUSTOM],
    ["GLLAM_SQLITE_LIB with spaces around", "darwin", "x64", { GLLAM_SQLITE_LIB: ` ${CUSTOM}\n` }, [CUSTOM], CUSTOM],
    ["an empty GLLAM_SQLITE_LIB counts as unset", "darwin", "arm64", { GLLAM_SQLITE_LIB: " " }, [HOMEBREW_SQLITE.arm64], HOMEBREW_SQLITE.arm64],
    ["Apple silicon: Homebrew under /opt/homebrew", "darwin", "arm64", {}, [HOMEBREW_SQLITE.arm64], HOMEBREW_SQLITE.arm64],
    ["Intel: Homebrew under /usr/local", "darwin", "x64", {}, [HOMEBREW_SQLITE.x64], HOMEBREW_SQLITE.x64],
    ["both present: the process's own architecture first (arm64)", "darwin", "arm64", {}, [HOMEBREW_SQLITE.x64, HOMEBREW_SQLITE.arm64], HOMEBREW_SQLITE.arm64],
    ["both present: the process's own architecture first (x64)", "darwin", "x64", {}, [HOMEBREW_SQLITE.arm64, HOMEBREW_SQLITE.x64], HOMEBREW_SQLITE.x64],
    ["only the other architecture's: tried (a universal build loads)", "darwin", "arm64", {}, [HOMEBREW_SQLITE.x64], HOMEBREW_SQLITE.x64],
  ])("%s", (_, platform, arch, env, files, expected) => {
    expect(choose(platform, arch, env as Record<string, string>, files)).toBe(expected);
  });

  test("macOS without one: a one-line E_EXTENSION error that says how to install one and how to point GLLAM at it", async () => {
    const error = await expectGllamError(() => choose("darwin", "arm64", {}, []), "E_EXTENSION");
    expect(error.message).not.toContain("\n");
    expect(error.message).toContain("brew install sqlite");
    expect(error.message).toContain("GLLAM_SQLITE_LIB");
  });

  test("GLLAM_SQLITE_LIB naming a missing file is an error, not a silent fallback to Homebrew", async () => {
    await expectGllamError(() => choose("darwin", "arm64", { GLLAM_SQLITE_LIB: CUSTOM }, [HOMEBREW_SQLITE.arm64]), "E_CONFIG", /GLLAM_SQLITE_LIB names \/Users\/ann lee\/sqlite\/libsqlite3\.dylib, which does not exist/);
  });
});
