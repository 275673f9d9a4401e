/**
 * Which SQLite library bun:sqlite uses. On Linux and Windows Bun links its own SQLite, which loads
 * extensions. On macOS it uses Apple's, which cannot (sqlite-vec would not load at all), so before
 * the first database opens, GLLAM points it at another: $GLLAM_SQLITE_LIB, else Homebrew's.
 */
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { describeError, GllamError } from "./errors.ts";

/** Homebrew's SQLite: under /opt/homebrew on Apple silicon, /usr/local on Intel. */
export const HOMEBREW_SQLITE = {
  arm64: "/opt/homebrew/opt/sqlite/lib/libsqlite3.dylib",
  x64: "/usr/local/opt/sqlite/lib/libsqlite3.dylib",
} as const;

export type SqliteLibraryQuery = {
  platform: string;
  arch: string;
  env: Record<string, string | undefined>;
  exists: (path: string) => boolean;
};

/**
 * The SQLite library to load instead of Bun's default, or undefined to keep it (every platform but
 * macOS, where GLLAM_SQLITE_LIB is ignored). Homebrew's location for the process's own architecture
 * comes first: a library of the other one only loads if it is universal.
 */
export function chooseSqliteLibrary({ platform, arch, env, exists }: SqliteLibraryQuery): string | undefined {
  if (platform !== "darwin") return undefined;
  const named = env.GLLAM_SQLITE_LIB?.trim();
  if (named) {
    if (!exists(named)) throw new GllamError("E_CONFIG", `GLLAM_SQLITE_LIB names ${named}, which does not exist`);
    return named;
  }
  const candidates = arch === "arm64" ? [HOMEBREW_SQLITE.arm64, HOMEBREW_SQLITE.x64] : [HOMEBREW_SQLITE.x64, HOMEBREW_SQLITE.arm64];
  const found = candidates.find(exists);
  if (found) return found;
  throw new GllamError(
    "E_EXTENSION",
    "macOS's own SQLite cannot load extensions, and GLLAM needs sqlite-vec: install one with `brew install sqlite`, " +
      "or set GLLAM_SQLITE_LIB to the path of a libsqlite3.dylib that can",
  );
}

let chosen: string | undefined | null = null;

/** Points bun:sqlite at the chosen library, once per process, before any database opens. */
export function useExtensionCapableSqlite(): void {
  if (chosen !== null) return;
  chosen = chooseSqliteLibrary({ platform: process.platform, arch: process.arch, env: process.env, exists: existsSync });
  if (chosen === undefined) return;
  try {
    Database.setCustomSQLite(chosen);
  } catch (error) {
    throw new GllamError("E_EXTENSION", `cannot use the SQLite library ${chosen}: ${describeError(error)}`);
  }
}
