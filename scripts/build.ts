/**
 * `bun run build [OUTFILE]`: one executable for this machine, dist/gllam, with the embedding model,
 * the tfjs WASM backend, the sqlite-vec extension and the static embedding table inside. It runs
 * from any folder, offline, with no node_modules. The table is distilled first unless cached (about
 * a minute, once); GLLAM_STATIC_TABLE names another table file to embed. scripts/release.ts builds
 * every platform's executable with the same `compileGllam`.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { BunPlugin } from "bun";
import type { BuildInfo } from "../src/cli/version.ts";
import { embeddedTableName, ensureStaticTable } from "../src/embed/static/bundled-table.ts";
import { targetName, VEC_TARGETS, type Target } from "../src/engine/vec-extension.ts";

const REPO_ROOT = join(import.meta.dir, "..");
// A fixed folder inside the repo: the table's path below src/ is recorded in the executable, so a
// temporary folder's random name would make two builds differ.
const STAGING = join(REPO_ROOT, "dist", ".staging");

export type CompileOptions = {
  outfile: string;
  target: Target;
  build: BuildInfo;
  /** The static table file to embed (default: ensureStaticTable()). */
  staticTable?: string;
  /** The target's sqlite-vec library, when its package is not in node_modules (another platform's). */
  vecLibrary?: string;
};

export function isTarget(name: string): name is Target {
  return Object.hasOwn(VEC_TARGETS, name);
}

const git = (...args: string[]): string | undefined => {
  const proc = Bun.spawnSync(["git", ...args], { cwd: REPO_ROOT, stdout: "pipe", stderr: "ignore" });
  return proc.exitCode === 0 ? proc.stdout.toString().trim() : undefined;
};

/**
 * The build date: SOURCE_DATE_EPOCH (https://reproducible-builds.org/specs/source-date-epoch/) when
 * set, else the commit's date, else now; in whole seconds, UTC, so two builds of a commit agree.
 */
export function buildDate(sourceDateEpoch: string | undefined, commitEpoch: string | undefined, now: Date): Date {
  for (const seconds of [sourceDateEpoch, commitEpoch]) {
    if (seconds !== undefined && /^\d+$/.test(seconds.trim())) return new Date(Number(seconds.trim()) * 1000);
  }
  return new Date(Math.floor(now.getTime() / 1000) * 1000);
}

/** Target, commit (with "-dirty" when tracked files differ from it) and date, injected with `define`. */
export function collectBuildInfo(target: Target, env: Record<string, string | undefined> = process.env): BuildInfo {
  const head = git("rev-parse", "--short=12", "HEAD");
  const dirty = head !== undefined && git("status", "--porcelain", "--untracked-files=no") !== "";
  const date = buildDate(env.SOURCE_DATE_EPOCH, head ? git("log", "-1", "--format=%ct") : undefined, new Date());
  return { target, commit: head ? `${head}${dirty ? "-dirty" : ""}` : "unknown", date: date.toISOString().replace(".000Z", "Z") };
}

/** Resolves the target's sqlite-vec package to a library file outside node_modules. */
function vecLibraryPlugin(target: Target, library: string): BunPlugin {
  const { package: name, file } = VEC_TARGETS[target];
  const specifier = new RegExp(`^${name}/${file.replace(".", "\\.")}$`);
  return {
    name: "sqlite-vec-library",
    setup(build) {
      build.onResolve({ filter: specifier }, () => ({ path: resolve(library) }));
    },
  };
}

/** Compiles gllam for a target; returns the executable's size in bytes. */
export async function compileGllam(options: CompileOptions): Promise<number> {
  const { outfile, target } = options;
  rmSync(outfile, { force: true });
  // Embedded under a name made from its bytes, which src/embed/static/bundled-table.ts looks for.
  const staging = join(STAGING, target);
  mkdirSync(staging, { recursive: true });
  const tableBytes = readFileSync(options.staticTable ?? (await ensureStaticTable()));
  const table = join(staging, embeddedTableName(tableBytes));
  writeFileSync(table, tableBytes);
  const result = await Bun.build({
    // Failures come back as logs, reported below with the target.
    throw: false,
    // The workers are entry points of their own: `new Worker(url)` loads them from inside the executable.
    entrypoints: [join(REPO_ROOT, "src/cli/main.ts"), join(REPO_ROOT, "src/embed/embed-worker.ts"), join(REPO_ROOT, "src/episodic/static-ahead-worker.ts"), join(REPO_ROOT, "src/episodic/static-knn-worker.ts"), table],
    // Entry points are stored by their path below src/ (the table, outside it, by its name).
    root: join(REPO_ROOT, "src"),
    naming: { asset: "[name].[ext]" },
    target: "bun",
    minify: true,
    format: "esm",
    bytecode: true,
    define: { GLLAM_BUILD: JSON.stringify(options.build) },
    plugins: options.vecLibrary ? [vecLibraryPlugin(target, options.vecLibrary)] : [],
    // The executable's behaviour must not depend on the folder it is started from.
    compile: { target: `bun-${target}`, outfile, autoloadDotenv: false, autoloadBunfig: false },
  }).finally(() => rmSync(staging, { recursive: true, force: true }));
  if (!result.success) throw new AggregateError(result.logs, `cannot build ${outfile} for ${target}:\n${result.logs.join("\n")}`);
  return Bun.file(outfile).size;
}

export const mebibytes = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

if (import.meta.main) {
  const host = targetName();
  if (!isTarget(host)) {
    console.error(`build: no sqlite-vec package for ${host} (targets: ${Object.keys(VEC_TARGETS).join(", ")})`);
    process.exit(1);
  }
  const outfile = process.argv[2] ?? "dist/gllam";
  const started = performance.now();
  try {
    const size = await compileGllam({ outfile, target: host, build: collectBuildInfo(host) });
    console.log(`built ${outfile}: ${mebibytes(size)} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
