/**
 * `bun run distill [--out PATH] [--if-missing]`: distils the static embedding table from the bundled
 * model and assets/wordlist (deterministic: the same inputs give the same bytes) into the cache
 * folder, where gllam finds it. --out writes it there instead (the cache untouched: compare two
 * runs' bytes); --if-missing keeps a cached table.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { bundledStaticPlan, cachedTableName } from "../src/embed/static/bundled-table.ts";
import { distillStaticTable } from "../src/embed/static/distill.ts";
import { encodeStaticTable } from "../src/embed/static/table.ts";
import { findCacheFile, writeCacheFile } from "../src/engine/cache-files.ts";

const { values } = parseArgs({ options: { out: { type: "string" }, "if-missing": { type: "boolean" } } });
const plan = bundledStaticPlan();
const started = performance.now();
const tty = process.stderr.isTTY;
const onProgress = (done: number, total: number) => tty && process.stderr.write(`\rdistilling: ${done}/${total} rows\x1b[K`);
let path = values["if-missing"] ? findCacheFile(cachedTableName(plan)) : undefined;
if (!path) {
  const bytes = encodeStaticTable(await distillStaticTable(plan, onProgress));
  if (values.out) writeFileSync((path = values.out), bytes);
  else path = writeCacheFile(cachedTableName(plan), bytes, { errorCode: "E_EMBEDDER", what: "the static embedding table" });
}
if (tty) process.stderr.write("\n");
const bytes = await Bun.file(path).bytes();
const sha = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(`${path}: ${plan.pieceRows} pieces + ${plan.words.length} words, ${plan.dims} dims, ${(bytes.length / 1024 / 1024).toFixed(1)} MiB, sha256 ${sha} (${seconds} s)`);
