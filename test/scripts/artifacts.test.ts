import { describe, expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { formatChecksums, sha256, tarGz, zip, type ArchiveEntry } from "../../scripts/release/artifacts.ts";
import { makeTempDir } from "../helpers.ts";

/** The release archives, read back by the system's own tools (GNU tar, unzip, sha256sum). */
const work = makeTempDir("gllam-artifacts-");
const date = new Date("2024-03-05T06:07:08Z");
// Sizes around the 512-byte tar block and an incompressible one; a name out of order.
const random = new Uint8Array(70_000).map((_, i) => (i * 2654435761) >>> 24);
const entries: ArchiveEntry[] = [
  { name: "gllam", bytes: random, mode: 0o755 },
  { name: "README.txt", bytes: new TextEncoder().encode("x".repeat(512)), mode: 0o644 },
  { name: "empty", bytes: new Uint8Array(0), mode: 0o600 },
];

const run = (argv: string[], cwd = work) => {
  const proc = Bun.spawnSync(argv, { cwd, env: { ...process.env, TZ: "UTC" }, stdout: "pipe", stderr: "pipe" });
  return { code: proc.exitCode, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
};

describe("tar.gz", () => {
  const archive = tarGz(entries, date);
  const path = join(work, "a.tar.gz");
  writeFileSync(path, archive);

  test("lists every entry in name order, owned by 0:0, with its mode and the given date", () => {
    const listing = run(["tar", "--numeric-owner", "--full-time", "-tvzf", path], work);
    expect(listing.stderr).toBe("");
    const lines = listing.stdout.trim().split("\n").map((line) => line.split(/\s+/));
    expect(lines.map(([mode, owner, size, day, time, name]) => [mode, owner, size, `${day}T${time}`, name])).toEqual([
      ["-rw-r--r--", "0/0", "512", "2024-03-05T06:07:08", "README.txt"],
      ["-rw-------", "0/0", "0", "2024-03-05T06:07:08", "empty"],
      ["-rwxr-xr-x", "0/0", "70000", "2024-03-05T06:07:08", "gllam"],
    ]);
  });

  test("extracts the same bytes", () => {
    const out = join(work, "tar-out");
    run(["mkdir", out]);
    expect(run(["tar", "-xzf", path, "-C", out]).code).toBe(0);
    expect(sha256(readFileSync(join(out, "gllam")))).toBe(sha256(random));
    expect(statSync(join(out, "gllam")).mode & 0o777).toBe(0o755);
  });

  test("gzip header carries no timestamp, and the same input gives the same bytes", () => {
    expect([...archive.subarray(4, 8)]).toEqual([0, 0, 0, 0]);
    expect(sha256(tarGz([...entries].reverse(), date))).toBe(sha256(archive));
    expect(sha256(tarGz(entries, new Date("2024-03-05T06:07:10Z")))).not.toBe(sha256(archive));
  });

  test("a name over the ustar limit is refused", () => {
    expect(() => tarGz([{ name: "n".repeat(101), bytes: new Uint8Array(1), mode: 0o644 }], date)).toThrow(/over 100 bytes/);
  });
});

describe.skipIf(!Bun.which("unzip"))("zip", () => {
  const archive = zip(entries, date);
  const path = join(work, "a.zip");
  writeFileSync(path, archive);

  test("passes unzip's integrity test and lists entries in name order with the given date", () => {
    expect(run(["unzip", "-tq", path]).stdout).toContain("No errors detected");
    const listing = run(["unzip", "-Z", "-T", path]).stdout; // zipinfo: mode, ..., size, ..., yyyymmdd.hhmmss, name
    const rows = listing.split("\n").filter((line) => /^[-d]r/.test(line)).map((line) => line.split(/\s+/));
    expect(rows.map((row) => [row[0], row[3], row.at(-2), row.at(-1)])).toEqual([
      ["-rw-r--r--", "512", "20240305.060708", "README.txt"],
      ["-rw-------", "0", "20240305.060708", "empty"],
      ["-rwxr-xr-x", "70000", "20240305.060708", "gllam"],
    ]);
  });

  test("extracts the same bytes, executable", () => {
    const out = join(work, "zip-out");
    expect(run(["unzip", "-q", path, "-d", out]).code).toBe(0);
    expect(sha256(readFileSync(join(out, "gllam")))).toBe(sha256(random));
    expect(statSync(join(out, "gllam")).mode & 0o777).toBe(0o755);
  });

  test("the same input gives the same bytes", () => {
    expect(sha256(zip([...entries].reverse(), date))).toBe(sha256(archive));
  });
});

test("SHA256SUMS is what sha256sum writes and checks", () => {
  const files = [
    { name: "b.tar.gz", bytes: new TextEncoder().encode("bee") },
    { name: "a.exe", bytes: random },
  ];
  for (const file of files) writeFileSync(join(work, file.name), file.bytes);
  const sums = formatChecksums(files.map((file) => ({ name: file.name, sha256: sha256(file.bytes) })));
  expect(sums).toBe(run(["sha256sum", "a.exe", "b.tar.gz"]).stdout);
  writeFileSync(join(work, "SHA256SUMS"), sums);
  expect(run(["sha256sum", "-c", "SHA256SUMS"]).code).toBe(0);
});
