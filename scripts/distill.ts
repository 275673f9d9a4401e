/**
 * `bun run distill [--out PATH] [--if-missing]`: distils the static embedding table from the bundled
 * model and assets/wordlist (deterministic: the same inputs give the same bytes) into the cache
 * folder, where gllam finds it; --out also copies it elsewhere; --if-missing keeps a cached table.
 */
import { copyFileSync, rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { bundledStaticPlan, cachedTableName, ensureStaticTableFile } from "../src/embed/static/bundled-table.ts";
import { findCacheFile } from "../src/engine/cache-files.ts";

const { values } = parseArgs({ options: { out: { type: "string" }, "if-missing": { type: "boolean" } } });
const plan = bundledStaticPlan();
const cached = findCacheFile(cachedTableName(plan));
if (cached && !values["if-missing"]) rmSync(cached);
const started = performance.now();
const tty = process.stderr.isTTY;
const path = await ensureStaticTableFile(plan, (done, total) => tty && process.stderr.write(`\rdistilling: ${done}/${total} rows\x1b[K`));
if (tty) process.stderr.write("\n");
if (values.out) copyFileSync(path, values.out);
const bytes = await Bun.file(path).bytes();
const sha = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(`${values.out ?? path}: ${plan.pieceRows} pieces + ${plan.words.length} words, ${(bytes.length / 1024 / 1024).toFixed(1)} MiB, sha256 ${sha} (${seconds} s)`);
