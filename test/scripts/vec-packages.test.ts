import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { extractVecLibrary, matchesIntegrity, pinnedPackage } from "../../scripts/release/vec-packages.ts";
import { targetName, VEC_TARGETS, type Target } from "../../src/engine/vec-extension.ts";
import { makeTempDir, REPO_ROOT } from "../helpers.ts";

/** Every platform's sqlite-vec package is pinned exactly, at the version sqlite-vec itself names. */
test.each(Object.keys(VEC_TARGETS) as Target[])("%s: pinned in package.json and bun.lock at sqlite-vec's own version", (target) => {
  const name = VEC_TARGETS[target].package;
  const sqliteVec = JSON.parse(readFileSync(join(REPO_ROOT, "node_modules", "sqlite-vec", "package.json"), "utf8"));
  const pin = pinnedPackage(name);
  expect(pin.version).toBe(sqliteVec.optionalDependencies[name]);
  expect(pin.integrity).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/);
});

test("integrity: the bytes that match, and a single changed byte that does not", () => {
  const bytes = new TextEncoder().encode("tarball");
  const integrity = `sha512-${new Bun.CryptoHasher("sha512").update(bytes).digest("base64")}`;
  expect(matchesIntegrity(bytes, integrity)).toBe(true);
  expect(matchesIntegrity(new TextEncoder().encode("tarbalm"), integrity)).toBe(false);
  expect(matchesIntegrity(bytes, integrity.replace("sha512", "sha1"))).toBe(false);
});

test("the host's library from the verified tarball is the one bun installed", async () => {
  const host = targetName() as Target;
  const library = await extractVecLibrary(host, makeTempDir("gllam-vec-"));
  const installed = join(REPO_ROOT, "node_modules", VEC_TARGETS[host].package, VEC_TARGETS[host].file);
  expect(Bun.hash(readFileSync(library))).toBe(Bun.hash(readFileSync(installed)));
});

test("a cached tarball that does not match bun.lock is fetched again and replaced", async () => {
  const cache = makeTempDir("gllam-vec-cache-");
  const pin = pinnedPackage("sqlite-vec-linux-arm64");
  const tarball = join(cache, "gllam", "release", `${pin.name}-${pin.version}.tgz`);
  mkdirSync(dirname(tarball), { recursive: true });
  writeFileSync(tarball, "not the package");
  const saved = process.env.XDG_CACHE_HOME;
  process.env.XDG_CACHE_HOME = cache;
  try {
    const library = await extractVecLibrary("linux-arm64", join(cache, "out"));
    expect(matchesIntegrity(readFileSync(tarball), pin.integrity)).toBe(true);
    expect(readFileSync(library).subarray(0, 4)).toEqual(Buffer.from("\x7fELF", "latin1"));
  } finally {
    if (saved === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = saved;
  }
});
