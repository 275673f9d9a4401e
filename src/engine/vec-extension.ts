import type { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { findCacheFile, writeCacheFile } from "./cache-files.ts";
import { isEmbeddedPath } from "./embedded.ts";
import { describeError, GllamError } from "./errors.ts";

/**
 * The platforms GLLAM ships for (scripts/release.ts builds one executable each), named as Bun's
 * compile targets name them, with the sqlite-vec platform package (pinned in package.json) and the
 * loadable file inside it.
 */
export const VEC_TARGETS = {
  "linux-x64": { package: "sqlite-vec-linux-x64", file: "vec0.so" },
  "linux-arm64": { package: "sqlite-vec-linux-arm64", file: "vec0.so" },
  "darwin-arm64": { package: "sqlite-vec-darwin-arm64", file: "vec0.dylib" },
  "darwin-x64": { package: "sqlite-vec-darwin-x64", file: "vec0.dylib" },
  "windows-x64": { package: "sqlite-vec-windows-x64", file: "vec0.dll" },
} as const;

export type Target = keyof typeof VEC_TARGETS;

/** The target name of a platform and architecture ("win32" is "windows"), whether or not GLLAM ships for it. */
export const targetName = (platform: string = process.platform, arch: string = process.arch): string => `${platform === "win32" ? "windows" : platform}-${arch}`;

/**
 * The platform package's loadable file, imported as a file so `bun build --compile` embeds it.
 * Each case compares process.platform and process.arch literally: a compiled build inlines them for
 * its target, so only that target's import is left to bundle (the other packages need not be there).
 */
async function importVecAsset(): Promise<string> {
  if (process.platform === "linux" && process.arch === "x64") return (await import("sqlite-vec-linux-x64/vec0.so", { with: { type: "file" } })).default;
  if (process.platform === "linux" && process.arch === "arm64") return (await import("sqlite-vec-linux-arm64/vec0.so", { with: { type: "file" } })).default;
  if (process.platform === "darwin" && process.arch === "arm64") return (await import("sqlite-vec-darwin-arm64/vec0.dylib", { with: { type: "file" } })).default;
  if (process.platform === "darwin" && process.arch === "x64") return (await import("sqlite-vec-darwin-x64/vec0.dylib", { with: { type: "file" } })).default;
  if (process.platform === "win32" && process.arch === "x64") return (await import("sqlite-vec-windows-x64/vec0.dll", { with: { type: "file" } })).default;
  throw new GllamError("E_EXTENSION", `sqlite-vec has no build for ${targetName()}`);
}

/**
 * The cache file an embedded extension is copied to: one folder per build of the extension (so
 * binaries of different versions never share a file), the file named vec0 with the embedded
 * file's own extension (.so, .dylib or .dll). Relative, with "/": cache-files joins it per platform.
 */
export function vecCacheName(bytes: Uint8Array, embeddedPath: string): string {
  return `sqlite-vec-${Bun.hash(bytes).toString(16)}/vec0${extname(embeddedPath)}`;
}

/** Copies the embedded extension once to a real file: a process cannot dlopen a file inside the executable. */
function materialize(embeddedPath: string): string {
  const bytes = readFileSync(embeddedPath);
  const name = vecCacheName(bytes, embeddedPath);
  return findCacheFile(name, bytes.length) ?? writeCacheFile(name, bytes, { mode: 0o755, errorCode: "E_EXTENSION", what: "sqlite-vec out of the executable" });
}

let loadablePath: Promise<string> | undefined;

/** The real file to hand to loadExtension, resolved once per process. */
export function resolveVecExtension(): Promise<string> {
  loadablePath ??= importVecAsset().then((asset) => (isEmbeddedPath(asset) ? materialize(asset) : asset));
  return loadablePath;
}

export function loadVecExtension(db: Database, path: string): void {
  try {
    db.loadExtension(path, "sqlite3_vec_init");
  } catch (error) {
    throw new GllamError("E_EXTENSION", `cannot load sqlite-vec from ${path}: ${describeError(error)}`);
  }
}
