/**
 * `bun run release [--out DIR] [--targets linux-x64,darwin-arm64,...]`: gllam for every platform
 * (default all five), each with its own sqlite-vec library, the bundled model and the static table
 * inside. Writes DIR (default dist/release)/gllam-<os>-<arch>[.exe], a .tar.gz (.zip for Windows) of
 * each holding `gllam[.exe]`, and SHA256SUMS. Two runs on the same commit give the same bytes
 * (SOURCE_DATE_EPOCH, else the commit's date, dates the build and the archive entries).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ensureStaticTable } from "../src/embed/static/bundled-table.ts";
import { VEC_TARGETS, type Target } from "../src/engine/vec-extension.ts";
import { formatChecksums, sha256, tarGz, zip } from "./release/artifacts.ts";
import { extractVecLibrary } from "./release/vec-packages.ts";
import { collectBuildInfo, compileGllam, isTarget, mebibytes } from "./build.ts";

export const ALL_TARGETS = Object.keys(VEC_TARGETS) as Target[];

/** The release's file names of a target: the executable, its archive, and the name inside it. */
export function releaseNames(target: Target): { binary: string; archive: string; inner: string } {
  const windows = target.startsWith("windows-");
  return {
    binary: `gllam-${target}${windows ? ".exe" : ""}`,
    archive: `gllam-${target}${windows ? ".zip" : ".tar.gz"}`,
    inner: windows ? "gllam.exe" : "gllam",
  };
}

/** The targets named by --targets (comma-separated), every one by default. */
export function parseTargets(list: string | undefined): Target[] {
  if (list === undefined) return ALL_TARGETS;
  const names = list.split(",").map((name) => name.trim());
  const unknown = names.filter((name) => !isTarget(name));
  if (unknown.length > 0 || names.length === 0) throw new Error(`unknown target ${unknown.join(", ") || "(none)"}: choose from ${ALL_TARGETS.join(", ")}`);
  return [...new Set(names as Target[])];
}

type Built = { target: Target; binaryBytes: number; archiveBytes: number };

async function release(out: string, targets: Target[]): Promise<Built[]> {
  const staging = join(out, ".vec");
  mkdirSync(out, { recursive: true });
  const staticTable = await ensureStaticTable();
  const sums: { name: string; sha256: string }[] = [];
  const built: Built[] = [];
  for (const target of targets) {
    const names = releaseNames(target);
    const build = collectBuildInfo(target);
    const outfile = join(out, names.binary);
    const vecLibrary = await extractVecLibrary(target, staging);
    const started = performance.now();
    await compileGllam({ outfile, target, build, staticTable, vecLibrary });
    const binary = await Bun.file(outfile).bytes();
    const entries = [{ name: names.inner, bytes: binary, mode: 0o755 }];
    const date = new Date(build.date);
    const archive = names.archive.endsWith(".zip") ? zip(entries, date) : tarGz(entries, date);
    writeFileSync(join(out, names.archive), archive);
    sums.push({ name: names.binary, sha256: sha256(binary) }, { name: names.archive, sha256: sha256(archive) });
    built.push({ target, binaryBytes: binary.length, archiveBytes: archive.length });
    console.log(`${target}: ${names.binary} ${mebibytes(binary.length)}, ${names.archive} ${mebibytes(archive.length)} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  }
  rmSync(staging, { recursive: true, force: true });
  writeFileSync(join(out, "SHA256SUMS"), formatChecksums(sums));
  return built;
}

if (import.meta.main) {
  try {
    const { values } = parseArgs({ options: { out: { type: "string" }, targets: { type: "string" } } });
    const out = values.out ?? "dist/release";
    await release(out, parseTargets(values.targets));
    console.log(`wrote ${join(out, "SHA256SUMS")}`);
  } catch (error) {
    console.error(`release: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
