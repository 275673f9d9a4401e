import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { version } from "../../package.json";
import { ALL_TARGETS, releaseNames } from "../../scripts/release.ts";
import { extractVecLibrary } from "../../scripts/release/vec-packages.ts";
import { VEC_TARGETS, type Target } from "../../src/engine/vec-extension.ts";
import { makeTempDir, REPO_ROOT } from "../helpers.ts";
import { expectIngestAndStats, expectSeedAndRecall, installCompiled } from "./compiled.ts";

/**
 * `bun run release`, run once for this file. The normal suite builds linux-x64 (the full smoke test)
 * and linux-arm64 (seed and recall under qemu-user, static tier); GLLAM_RELEASE_TEST=full builds all
 * five, checks the macOS and Windows executables by their headers and the library inside, and runs
 * the arm64 one with the bundled model too (several minutes more on a 2-core machine).
 */
const FULL = process.env.GLLAM_RELEASE_TEST === "full";
const TARGETS: Target[] = FULL ? ALL_TARGETS : ["linux-x64", "linux-arm64"];
const work = makeTempDir("gllam-release-");
const out = join(work, "release");
const vec = join(work, "vec");

beforeAll(() => {
  const started = performance.now();
  // The test static table goes in (GLLAM_STATIC_TABLE, from test/setup.ts); Bun.spawn needs the env passed.
  // From another folder, with --out relative to it.
  const argv = ["bun", join(REPO_ROOT, "scripts", "release.ts"), "--out", "release", "--targets", TARGETS.join(",")];
  const release = Bun.spawnSync(argv, { cwd: work, env: { ...process.env }, stdout: "pipe", stderr: "pipe" });
  if (release.exitCode !== 0) throw new Error(`bun run release failed:\n${release.stdout}\n${release.stderr}`);
  console.log(`bun run release --targets ${TARGETS.join(",")}: ${((performance.now() - started) / 1000).toFixed(1)} s\n${release.stdout.toString().trim()}`);
}, 900_000);

const run = (argv: string[], cwd = out) => {
  const proc = Bun.spawnSync(argv, { cwd, stdout: "pipe", stderr: "pipe" });
  return { code: proc.exitCode, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
};

/** What an executable's header says it is: format and machine. */
function identify(bytes: Uint8Array): string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0) === 0x7f454c46) return `ELF ${({ 0x3e: "x86-64", 0xb7: "arm64" } as Record<number, string>)[view.getUint16(18, true)] ?? "other"}`;
  if (view.getUint32(0, true) === 0xfeedfacf) return `Mach-O ${({ 0x01000007: "x86-64", 0x0100000c: "arm64" } as Record<number, string>)[view.getUint32(4, true)] ?? "other"}`;
  if (view.getUint16(0, true) === 0x5a4d) {
    const pe = view.getUint32(0x3c, true);
    if (view.getUint32(pe) !== 0x50450000) return "MZ without PE";
    const machine = view.getUint16(pe + 4, true) === 0x8664 ? "x86-64" : "other";
    return `${view.getUint16(pe + 24, true) === 0x20b ? "PE32+" : "PE32"} ${machine}`;
  }
  return "unknown";
}

const HEADERS: Record<Target, string> = {
  "linux-x64": "ELF x86-64",
  "linux-arm64": "ELF arm64",
  "darwin-arm64": "Mach-O arm64",
  "darwin-x64": "Mach-O x86-64",
  "windows-x64": "PE32+ x86-64",
};

describe("bun run release", () => {
  test("writes each target's executable and archive, and a SHA256SUMS that sha256sum checks", () => {
    const expected = TARGETS.flatMap((target) => [releaseNames(target).binary, releaseNames(target).archive]);
    expect(readdirSync(out).sort()).toEqual([...expected, "SHA256SUMS"].sort());
    expect(readFileSync(join(out, "SHA256SUMS"), "utf8").trim().split("\n")).toHaveLength(expected.length);
    expect(run(["sha256sum", "--check", "--strict", "SHA256SUMS"])).toMatchObject({ code: 0, stderr: "" });
  });

  test("an archive of each kind holds its executable alone, byte for byte", async () => {
    // One per format: unpacking 150 MB takes seconds, and every archive comes from the same writer.
    for (const target of TARGETS.filter((t) => t === "linux-x64" || t === "windows-x64")) {
      const names = releaseNames(target);
      const archive = join(out, names.archive);
      // Read back in memory; test/scripts/artifacts.test.ts and install.test.ts unpack the writers' output with tar and unzip.
      const inner = names.archive.endsWith(".zip")
        ? { names: run(["unzip", "-Z1", archive]).stdout.trim().split("\n"), bytes: Bun.spawnSync(["unzip", "-p", archive, names.inner]).stdout }
        : await new Bun.Archive(readFileSync(archive)).files().then(async (files) => ({ names: [...files.keys()], bytes: await files.get(names.inner)!.bytes() }));
      expect(inner.names).toEqual([names.inner]);
      expect(Bun.hash(inner.bytes)).toBe(Bun.hash(readFileSync(join(out, names.binary))));
    }
  });

  for (const target of ALL_TARGETS) {
    const built = TARGETS.includes(target);
    test.skipIf(!built)(`${target}: its header, and its own sqlite-vec library inside (no other platform's)${built ? "" : " (GLLAM_RELEASE_TEST=full)"}`, async () => {
      const binary = readFileSync(join(out, releaseNames(target).binary));
      expect(identify(binary)).toBe(HEADERS[target]);
      console.log(`${target}: ${binary.length.toLocaleString("en")} bytes (${(binary.length / 2 ** 20).toFixed(1)} MiB)`);
      for (const other of ALL_TARGETS) {
        const library = readFileSync(await extractVecLibrary(other, vec));
        expect(binary.indexOf(library) >= 0).toBe(other === target);
      }
      expect(binary.includes(`root/${VEC_TARGETS[target].file}`)).toBe(true);
    });
  }

  test("linux-x64 runs the smoke test: version, seed, recall, ingest through the worker pool, stats", () => {
    const { run: gllam, runDir, extractedLibrary } = installCompiled(join(out, releaseNames("linux-x64").binary), join(work, "x64"));
    expect(gllam("--version").stdout).toMatch(new RegExp(`^gllam ${version} linux-x64 \\(commit [0-9a-f]{12}(-dirty)?, built \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\)\\n$`));
    expectSeedAndRecall(gllam, runDir);
    expectIngestAndStats(gllam, runDir);
    const library = extractedLibrary("vec0.so");
    expect(library && Bun.hash(readFileSync(library))).toBe(Bun.hash(readFileSync(join(vec, "linux-x64", "vec0.so"))));
  });

  const qemu = findQemu();
  const tier = FULL ? "the bundled model" : "the static tier";
  test.skipIf(!qemu.ok)(`linux-arm64 seeds and recalls under qemu-user, with ${tier}${qemu.ok ? "" : ` (skipped: ${qemu.why})`}`, () => {
    if (!qemu.ok) return;
    const { run: gllam, runDir, extractedLibrary } = installCompiled(join(out, releaseNames("linux-arm64").binary), join(work, "arm64"), { emulator: qemu.argv });
    expect(gllam("--version").stdout).toStartWith(`gllam ${version} linux-arm64 (commit `);
    expectSeedAndRecall(gllam, runDir, { staticTier: !FULL });
    const library = extractedLibrary("vec0.so");
    expect(library && Bun.hash(readFileSync(library))).toBe(Bun.hash(readFileSync(join(vec, "linux-arm64", "vec0.so"))));
  });
});

/**
 * qemu-user for arm64 executables, with Debian's arm64 C library as their root (the executable is
 * linked against glibc). .ci/run installs both; here they are installed when missing and possible.
 */
function findQemu(): { ok: true; argv: string[] } | { ok: false; why: string } {
  const sysroot = "/usr/aarch64-linux-gnu";
  const find = () => Bun.which("qemu-aarch64-static") ?? Bun.which("qemu-aarch64");
  if ((!find() || !existsSync(join(sysroot, "lib", "ld-linux-aarch64.so.1"))) && process.getuid?.() === 0 && Bun.which("apt-get")) {
    const apt = (...args: string[]) => Bun.spawnSync(["apt-get", ...args], { env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" }, stdout: "ignore", stderr: "ignore" }).exitCode === 0;
    const install = () => apt("install", "-y", "--no-install-recommends", "qemu-user-static", "libc6-arm64-cross");
    if (!install()) apt("update") && install();
  }
  const emulator = find();
  if (!emulator) return { ok: false, why: "no qemu-aarch64-static: apt-get install qemu-user-static failed or is not possible here" };
  if (!existsSync(join(sysroot, "lib", "ld-linux-aarch64.so.1"))) return { ok: false, why: `no arm64 C library in ${sysroot}: apt-get install libc6-arm64-cross` };
  return { ok: true, argv: [emulator, "-L", sysroot] };
}
