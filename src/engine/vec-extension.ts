import type { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { findCacheFile, writeCacheFile } from "./cache-files.ts";
import { describeError, GllamError } from "./errors.ts";

/**
 * The platform package's loadable file, imported as a file so `bun build --compile` embeds it.
 * Each case is a literal import so the bundler can see it; scripts/build.ts marks the packages of
 * other platforms external, so a build only needs the host's package.
 */
async function importVecAsset(): Promise<string> {
  const platform = `${process.platform}-${process.arch}`;
  switch (platform) {
    case "linux-x64":
      return (await import("sqlite-vec-linux-x64/vec0.so", { with: { type: "file" } })).default;
    case "linux-arm64":
      return (await import("sqlite-vec-linux-arm64/vec0.so", { with: { type: "file" } })).default;
    case "darwin-arm64":
      return (await import("sqlite-vec-darwin-arm64/vec0.dylib", { with: { type: "file" } })).default;
    case "darwin-x64":
      return (await import("sqlite-vec-darwin-x64/vec0.dylib", { with: { type: "file" } })).default;
    default:
      throw new GllamError("E_EXTENSION", `sqlite-vec has no build for ${platform}`);
  }
}

/** A file inside a compiled executable lives in Bun's virtual filesystem, which dlopen cannot read. */
function isEmbedded(path: string): boolean {
  return path.startsWith("/$bunfs/") || path.includes("~BUN");
}

/** Copies the embedded extension once to a real file. */
function materialize(embeddedPath: string): string {
  const suffix = embeddedPath.endsWith(".dylib") ? "dylib" : "so";
  const bytes = readFileSync(embeddedPath);
  // One folder per build of the extension, so binaries of different versions never share a file.
  const name = join(`sqlite-vec-${Bun.hash(bytes).toString(16)}`, `vec0.${suffix}`);
  return findCacheFile(name, bytes.length) ?? writeCacheFile(name, bytes, { mode: 0o755, errorCode: "E_EXTENSION", what: "sqlite-vec out of the executable" });
}

let loadablePath: Promise<string> | undefined;

/** The real file to hand to loadExtension, resolved once per process. */
export function resolveVecExtension(): Promise<string> {
  loadablePath ??= importVecAsset().then((asset) => (isEmbedded(asset) ? materialize(asset) : asset));
  return loadablePath;
}

export function loadVecExtension(db: Database, path: string): void {
  try {
    db.loadExtension(path, "sqlite3_vec_init");
  } catch (error) {
    throw new GllamError("E_EXTENSION", `cannot load sqlite-vec from ${path}: ${describeError(error)}`);
  }
}
