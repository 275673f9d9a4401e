/**
 * Files GLLAM derives once and keeps across runs (the sqlite-vec library copied out of the binary,
 * the distilled static embedding table): the user's cache folder, else the temp folder (a
 * read-only HOME). Written atomically, since other processes may race us.
 */
import { existsSync, mkdirSync, statSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import nodePath, { dirname, join } from "node:path";
import { describeError, GllamError, type GllamErrorCode } from "./errors.ts";
import { writeFileAtomically } from "./files.ts";

export type CachePlaces = { env: Record<string, string | undefined>; home: string; tmp: string; uid: number | undefined; path: { join(...parts: string[]): string } };

/** The cache folders, first choice first, for a platform's paths (Windows too: spaces, backslashes). */
export function cacheDirsFor({ env, home, tmp, uid, path }: CachePlaces): string[] {
  const userCache = env.XDG_CACHE_HOME || (home ? path.join(home, ".cache") : undefined);
  return [...(userCache ? [path.join(userCache, "gllam")] : []), path.join(tmp, `gllam-${uid ?? "user"}`)];
}

export function cacheDirs(): string[] {
  return cacheDirsFor({ env: process.env, home: homedir(), tmp: tmpdir(), uid: process.getuid?.(), path: nodePath });
}

/**
 * Whether a path lies in one of the cache folders: files there are written whole by a rename and
 * never changed in place, so they are safe to map.
 */
export function isCacheFile(path: string): boolean {
  return cacheDirs().some((dir) => {
    const inside = nodePath.relative(dir, path);
    return inside !== "" && !inside.startsWith("..") && !nodePath.isAbsolute(inside);
  });
}

/** An existing cached file (of this size, when given), first cache folder first. */
export function findCacheFile(name: string, size?: number): string | undefined {
  return cacheDirs()
    .map((base) => join(base, name))
    .find((path) => existsSync(path) && (size === undefined || statSync(path).size === size));
}

/** Writes a cache file in the first folder that takes it; returns its path. */
export function writeCacheFile(name: string, bytes: Uint8Array, options: { mode?: number; errorCode: GllamErrorCode; what: string }): string {
  const failures: string[] = [];
  for (const base of cacheDirs()) {
    const target = join(base, name);
    try {
      mkdirSync(dirname(target), { recursive: true });
      writeFileAtomically(target, bytes, options.mode);
      return target;
    } catch (error) {
      failures.push(`${target}: ${describeError(error)}`);
    }
  }
  throw new GllamError(options.errorCode, `cannot write ${options.what} (${failures.join("; ")})`);
}
