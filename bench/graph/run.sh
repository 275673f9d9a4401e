#!/usr/bin/env bash
# Semantic graph benchmark: a synthetic graph (default 100K nodes, 1M links, 5% conflicting claims)
# written through addEdge in batched transactions, then multi-hop path and asOf lookups.
# Extra arguments go to the driver (e.g. --nodes 10000 --links 100000 --seed 2).
# Writes bench/results/graph.json and a Markdown table, bench/results/graph.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p bench/results
bun src/cli/main.ts bench graph --json bench/results/graph.json "$@" >/dev/null
bun -e '
const r = await Bun.file("bench/results/graph.json").json();
const rows = [
  ["graph", `${r.nodes.toLocaleString("en")} nodes, ${r.links.toLocaleString("en")} links`, ""],
  ["addEdge throughput (batched, with conflict checks), wall clock", `${r.add_edge_per_s.toLocaleString("en")} links/s`, ">= 20,000/s"],
  ["addEdge per second of CPU time (the rate on an idle core)", `${r.add_edge_cpu_per_s.toLocaleString("en")} links/s`, ""],
  ["findMultiHopPath p50 / p95 (2-4 hops)", `${r.path_p50_ms} / ${r.path_p95_ms} ms`, "p95 < 5 ms"],
  ["activeLinks asOf p50 / p95", `${r.asof_p50_ms} / ${r.asof_p95_ms} ms`, "p95 < 1 ms"],
  ["database file", `${(r.db_bytes / 2 ** 20).toFixed(1)} MiB`, ""],
  ["addEdge actions", Object.entries(r.actions).map(([k, v]) => `${k} ${v}`).join(", "), ""],
  ["path lengths found", Object.entries(r.path_hops).map(([k, v]) => `${k}: ${v}`).join(", "), ""],
];
const load = (await Bun.file("/proc/loadavg").text().catch(() => "?")).split(" ")[0];
console.log(`# Semantic graph benchmark (${new Date().toISOString().slice(0, 10)}, load average ${load} at the end)\n`);
console.log("| measure | result | target |\n|---|---|---|");
for (const [m, v, t] of rows) console.log(`| ${m} | ${v} | ${t} |`);
' | tee bench/results/graph.md
