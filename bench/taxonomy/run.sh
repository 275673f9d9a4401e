#!/usr/bin/env bash
# Taxonomy consolidation benchmark: a branch of --nodes nodes (default 100K) moved under another
# in 500-row transactions with 10 ms pauses while a second process reads the same file.
# Extra arguments go to the driver (e.g. --nodes 20000 --batch 1000 --pause 5).
# Writes bench/results/taxonomy.json and a Markdown table, bench/results/taxonomy.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p bench/results
bun src/cli/main.ts bench taxonomy --json bench/results/taxonomy.json "$@" >/dev/null
bun -e '
const r = await Bun.file("bench/results/taxonomy.json").json();
const rows = [
  ["branch moved", `${r.moved.toLocaleString("en")} nodes (${r.nodes.toLocaleString("en")} entities + categories) in ${r.batches} transactions of ${r.batch_size}, ${r.pause_ms} ms pauses`, ""],
  ["consolidation wall time", `${r.consolidate_s} s`, ""],
  ["reader queries during it (other process)", r.reader_queries.toLocaleString("en"), ""],
  ["reader latency p50 / p99 / max", `${r.reader_p50_ms} / ${r.reader_p99_ms} / ${r.reader_max_ms} ms`, "p99 < 20 ms"],
  ["reader SQLITE_BUSY errors", String(r.busy_errors), "0"],
  ["every node under the target afterwards, nothing else moved", r.verified ? "yes" : "NO", "yes"],
];
const load = (await Bun.file("/proc/loadavg").text().catch(() => "?")).split(" ")[0];
console.log(`# Taxonomy consolidation benchmark (${new Date().toISOString().slice(0, 10)}, load average ${load} at the end)\n`);
console.log("| measure | result | target |\n|---|---|---|");
for (const [m, v, t] of rows) console.log(`| ${m} | ${v} | ${t} |`);
' | tee bench/results/taxonomy.md
