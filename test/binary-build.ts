/**
 * One compiled gllam per test process, shared by every test file that drives the binary as users
 * do (MCP client, HTTP requests, the browser): built once on first use into a temp folder, with the
 * test static table inside (GLLAM_STATIC_TABLE, set by test/setup.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collectBuildInfo, compileGllam, isTarget } from "../scripts/build.ts";
import { targetName } from "../src/engine/vec-extension.ts";

let built: Promise<string> | undefined;

/** The path of this run's compiled gllam (built on the first call, removed when the process exits). */
export function compiledGllam(): Promise<string> {
  built ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), "gllam-bin-"));
    process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
    const outfile = join(dir, "gllam");
    const target = targetName();
    if (!isTarget(target)) throw new Error(`no sqlite-vec build for ${target}`);
    await compileGllam({ outfile, target, build: collectBuildInfo(target) });
    return outfile;
  })();
  return built;
}
