/**
 * What `gllam --version` prints: the package version, then what the executable was built for, from
 * which commit and when (scripts/build.ts defines GLLAM_BUILD at compile time), or "dev" and the
 * checkout's commit when run from source.
 */
import { version } from "../../package.json";

export type BuildInfo = { target: string; commit: string; date: string };

declare const GLLAM_BUILD: BuildInfo | undefined;

export function formatVersion(packageVersion: string, build: BuildInfo | undefined, checkoutCommit: string | undefined): string {
  if (build) return `gllam ${packageVersion} ${build.target} (commit ${build.commit}, built ${build.date})`;
  return `gllam ${packageVersion} dev${checkoutCommit ? ` (commit ${checkoutCommit})` : ""}`;
}

/** The commit of the source checkout this file is in, if git is there to say. */
function checkoutCommit(): string | undefined {
  try {
    const git = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: import.meta.dir, stdout: "pipe", stderr: "ignore" });
    return git.exitCode === 0 ? git.stdout.toString().trim() || undefined : undefined;
  } catch {
    return undefined; // no git on this machine
  }
}

export function versionLine(): string {
  const build = typeof GLLAM_BUILD === "undefined" ? undefined : GLLAM_BUILD;
  return formatVersion(version, build, build ? undefined : checkoutCommit());
}
