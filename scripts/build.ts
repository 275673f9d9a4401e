/**
 * `bun run build`: one executable, dist/gllam, with the embedding model, the tfjs WASM backend and
 * the sqlite-vec extension inside. It runs from any folder, offline, with no node_modules.
 */
import { rmSync } from "node:fs";

const outfile = process.argv[2] ?? "dist/gllam";
const host = `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;
// src/engine/vec-extension.ts names every platform's sqlite-vec package; only the host's is installed.
const otherPlatforms = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "windows-x64"]
  .filter((platform) => platform !== host)
  .map((platform) => `sqlite-vec-${platform}`);

rmSync(outfile, { force: true });
const started = performance.now();
const result = await Bun.build({
  // The embedding worker is its own entry point: `new Worker(url)` loads it from inside the executable.
  entrypoints: ["src/cli/main.ts", "src/embed/embed-worker.ts"],
  target: "bun",
  minify: true,
  format: "esm",
  bytecode: true,
  external: otherPlatforms,
  // The executable's behaviour must not depend on the folder it is started from.
  compile: { outfile, autoloadDotenv: false, autoloadBunfig: false },
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
const size = Bun.file(outfile).size;
console.log(`built ${outfile}: ${(size / 1024 / 1024).toFixed(1)} MiB in ${((performance.now() - started) / 1000).toFixed(1)} s`);
