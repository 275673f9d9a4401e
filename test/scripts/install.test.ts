import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { formatChecksums, sha256, tarGz } from "../../scripts/release/artifacts.ts";
import { makeTempDir, REPO_ROOT } from "../helpers.ts";

/**
 * install.sh against a release folder served over loopback HTTP. The "binaries" are small scripts,
 * and `uname` is a stub on PATH, so every platform's path runs here.
 */
const work = makeTempDir("gllam-install-");
const releaseDir = join(work, "release");
mkdirSync(releaseDir);
const fakeGllam = (target: string) => new TextEncoder().encode(`#!/bin/sh\necho "gllam 9.9.9 ${target} (test build)"\n`);
const archives = ["linux-x64", "linux-arm64", "darwin-arm64"].map((target) => {
  const name = `gllam-${target}.tar.gz`;
  const bytes = tarGz([{ name: "gllam", bytes: fakeGllam(target), mode: 0o755 }], new Date("2025-01-01T00:00:00Z"));
  writeFileSync(join(releaseDir, name), bytes);
  return { name, sha256: sha256(bytes) };
});
writeFileSync(join(releaseDir, "SHA256SUMS"), formatChecksums(archives));
// The same archives with a checksum list that does not match them.
const tamperedDir = join(work, "tampered");
mkdirSync(tamperedDir);
for (const { name } of archives) writeFileSync(join(tamperedDir, name), readFileSync(join(releaseDir, name)));
writeFileSync(join(tamperedDir, "SHA256SUMS"), formatChecksums(archives.map((a) => ({ ...a, sha256: sha256(new TextEncoder().encode(a.name)) }))));

const requests: string[] = [];
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    const path = new URL(request.url).pathname;
    requests.push(path);
    const file = Bun.file(join(work, ...path.split("/").filter((part) => part && part !== "..")));
    return file.size > 0 ? new Response(file) : new Response("not found", { status: 404 });
  },
});
afterAll(() => server.stop(true));
const baseUrl = (folder: string) => `http://127.0.0.1:${server.port}/${folder}/`;

let runs = 0;
/** Runs install.sh with a `uname` that reports this system and machine, and a fresh HOME. */
async function install(args: string[], options: { system?: string; machine?: string; env?: Record<string, string>; pathFirst?: string; rosetta?: boolean } = {}) {
  const dir = join(work, `run-${++runs}`);
  const stubs = join(dir, "stubs");
  const home = join(dir, "home");
  mkdirSync(stubs, { recursive: true });
  mkdirSync(home);
  writeFileSync(join(stubs, "uname"), `#!/bin/sh\ncase $1 in -s) echo ${options.system ?? "Linux"} ;; -m) echo ${options.machine ?? "x86_64"} ;; esac\n`);
  chmodSync(join(stubs, "uname"), 0o755);
  if (options.rosetta) {
    writeFileSync(join(stubs, "sysctl"), `#!/bin/sh\n[ "$2" = sysctl.proc_translated ] && echo 1\n`);
    chmodSync(join(stubs, "sysctl"), 0o755);
  }
  requests.length = 0;
  // Not spawnSync: the server answers from this process's event loop.
  const proc = Bun.spawn(["sh", join(REPO_ROOT, "install.sh"), ...args], {
    cwd: dir,
    env: { PATH: `${options.pathFirst ? `${options.pathFirst}:` : ""}${stubs}:/usr/bin:/bin`, HOME: home, ...options.env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr, home, dir };
}

describe("install.sh", () => {
  test("installs the archive of this OS and architecture into ~/.local/bin, checked, and says what to run next", async () => {
    const run = await install([], { env: { GLLAM_BASE_URL: baseUrl("release") } });
    expect(run).toMatchObject({ code: 0, stderr: "" });
    const installed = join(run.home, ".local", "bin", "gllam");
    expect(Bun.spawnSync([installed]).stdout.toString()).toBe("gllam 9.9.9 linux-x64 (test build)\n");
    expect(run.stdout).toContain(`installed gllam 9.9.9 linux-x64 (test build) to ${installed}\n`);
    expect(run.stdout).toContain(`${join(run.home, ".local", "bin")} is not on your PATH`);
    expect(run.stdout).toContain(`next: ${installed} seed && ${installed} recall "how to deploy caddy" --entity caddy\n`);
    expect(requests).toEqual(["/release/SHA256SUMS", "/release/gllam-linux-x64.tar.gz"]);
  });

  test.each([
    ["Linux", "aarch64", "linux-arm64"],
    ["Darwin", "arm64", "darwin-arm64"],
  ])("%s on %s gets %s, into --prefix", async (system, machine, target) => {
    const prefix = join(work, `prefix with spaces ${target}`);
    const run = await install(["--base-url", baseUrl("release"), "--prefix", prefix], { system, machine });
    expect(run.code).toBe(0);
    expect(Bun.spawnSync([join(prefix, "bin", "gllam")]).stdout.toString()).toContain(target);
    expect(existsSync(join(run.home, ".local"))).toBe(false);
    expect(run.stdout.includes("brew install sqlite")).toBe(system === "Darwin");
  });

  test("a bin folder on PATH: the next command is plain gllam", async () => {
    const prefix = join(work, "on-path");
    const run = await install([`--base-url=${baseUrl("release")}`, `--prefix=${prefix}`], { pathFirst: join(prefix, "bin") });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('next: gllam seed && gllam recall "how to deploy caddy" --entity caddy');
    expect(run.stdout).not.toContain("not on your PATH");
  });

  test("an archive that does not match SHA256SUMS is refused and nothing is installed", async () => {
    const prefix = join(work, "refused");
    const run = await install(["--base-url", baseUrl("tampered"), "--prefix", prefix]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^install\.sh: gllam-linux-x64\.tar\.gz does not match SHA256SUMS \(expected [0-9a-f]{64}, got [0-9a-f]{64}\): nothing installed\n$/);
    expect(existsSync(prefix)).toBe(false);
  });

  test.each([
    ["SunOS", "x86_64", "no gllam release for SunOS"],
    ["Linux", "riscv64", "no gllam release for linux on riscv64"],
    ["MINGW64_NT-10.0", "x86_64", "on Windows, download gllam-windows-x64.zip"],
  ])("%s on %s is refused before any download", async (system, machine, message) => {
    const prefix = join(work, `unknown-${system}-${machine}`);
    const run = await install(["--base-url", baseUrl("release"), "--prefix", prefix], { system, machine });
    expect(run.code).toBe(1);
    expect(run.stderr).toStartWith(`install.sh: ${message}`);
    expect(requests).toEqual([]);
    expect(existsSync(prefix)).toBe(false);
  });

  test.each([
    [[], "install.sh: no base URL"],
    [["--base-url", "http://127.0.0.1:9/x", "--bogus"], "install.sh: unknown argument --bogus"],
  ])("usage errors: %j", async (args, message) => {
    const run = await install(args);
    expect(run.code).toBe(1);
    expect(run.stderr).toStartWith(message);
  });

  test("an x86-64 shell under Rosetta gets the arm64 build", async () => {
    const prefix = join(work, "rosetta");
    const run = await install(["--base-url", baseUrl("release"), "--prefix", prefix], { system: "Darwin", machine: "x86_64", rosetta: true });
    expect(run.code).toBe(0);
    expect(requests).toEqual(["/release/SHA256SUMS", "/release/gllam-darwin-arm64.tar.gz"]);
  });

  test("a release folder without this platform's archive is refused", async () => {
    const run = await install(["--base-url", baseUrl("release"), "--prefix", join(work, "no-x64-mac")], { system: "Darwin", machine: "x86_64" });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("SHA256SUMS lists no gllam-darwin-x64.tar.gz");
  });

  test.skipIf(!Bun.which("shellcheck"))("is POSIX sh with no shellcheck findings", () => {
    const check = Bun.spawnSync(["shellcheck", "--shell=sh", "--severity=style", join(REPO_ROOT, "install.sh")], { stdout: "pipe" });
    expect(check.stdout.toString()).toBe("");
    expect(check.exitCode).toBe(0);
  });
});
