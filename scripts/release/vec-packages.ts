/**
 * Every target's sqlite-vec library for the release. bun installs only the host's platform package
 * (optional dependencies of other platforms are skipped, even when named in package.json), so the
 * others' tarballs are fetched with `npm pack` (the registry's own client: it honours the user's npm
 * configuration), checked against the integrity bun.lock pins, and kept in the cache folder.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import lockfile from "../../bun.lock";
import packageJson from "../../package.json";
import { findCacheFile, writeCacheFile } from "../../src/engine/cache-files.ts";
import { VEC_TARGETS, type Target } from "../../src/engine/vec-extension.ts";

type Pin = { name: string; version: string; integrity: string };

/** The package's exact version (package.json) and the integrity of its tarball (bun.lock). */
export function pinnedPackage(name: string): Pin {
  const version = (packageJson.optionalDependencies as Record<string, string>)[name];
  if (!version || !/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`package.json must pin ${name} to an exact version in optionalDependencies`);
  const entry = lockfile.packages[name];
  const [resolved, , , integrity] = entry ?? [];
  if (resolved !== `${name}@${version}` || typeof integrity !== "string") throw new Error(`bun.lock has no ${name}@${version} with an integrity (run bun install)`);
  return { name, version, integrity };
}

/** Whether the bytes match a Subresource Integrity string ("sha512-<base64>"). */
export function matchesIntegrity(bytes: Uint8Array, integrity: string): boolean {
  const [algorithm, expected] = integrity.split("-", 2) as [string, string | undefined];
  if (algorithm !== "sha512" || !expected) return false;
  return new Bun.CryptoHasher("sha512").update(bytes).digest("base64") === expected;
}

function npmPack(pin: Pin): Uint8Array {
  const folder = mkdtempSync(join(tmpdir(), "gllam-npm-pack-"));
  try {
    const npm = Bun.spawnSync(["npm", "pack", `${pin.name}@${pin.version}`, "--pack-destination", folder, "--silent"], { stdout: "pipe", stderr: "pipe" });
    const tarball = readdirSync(folder).find((file) => file.endsWith(".tgz"));
    if (npm.exitCode !== 0 || !tarball) throw new Error(`npm pack ${pin.name}@${pin.version} failed: ${npm.stderr.toString().trim()}`);
    return readFileSync(join(folder, tarball));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The package's tarball, from the cache or the registry, verified against bun.lock either way. */
function packageTarball(pin: Pin): Uint8Array {
  const name = `release/${pin.name}-${pin.version}.tgz`;
  const cached = findCacheFile(name);
  if (cached) {
    const bytes = readFileSync(cached);
    if (matchesIntegrity(bytes, pin.integrity)) return bytes;
  }
  const bytes = npmPack(pin);
  if (!matchesIntegrity(bytes, pin.integrity)) throw new Error(`${pin.name}@${pin.version} from the registry does not match bun.lock's integrity ${pin.integrity}`);
  writeCacheFile(name, bytes, { errorCode: "E_EXTENSION", what: `the ${pin.name} tarball` });
  return bytes;
}

/** Writes the target's loadable sqlite-vec file into `folder`; returns its path. */
export async function extractVecLibrary(target: Target, folder: string): Promise<string> {
  const { package: name, file } = VEC_TARGETS[target];
  const pin = pinnedPackage(name);
  const files = await new Bun.Archive(packageTarball(pin)).files();
  const library = files.get(`package/${file}`);
  if (!library) throw new Error(`${pin.name}@${pin.version} has no ${file}`);
  const path = join(folder, target, file);
  mkdirSync(join(folder, target), { recursive: true });
  writeFileSync(path, await library.bytes());
  return path;
}
