/** Renders bench/results/taxonomy.json (or the file named) as the Markdown table of the results. */
const r = await Bun.file(process.argv[2] ?? "bench/results/taxonomy.json").json();
const load = (await Bun.file("/proc/loadavg").text().catch(() => "?")).split(" ")[0];
const lines = [
  `# Taxonomy consolidation benchmark (${new Date().toISOString().slice(0, 10)}, load average ${load} at the end)`,
  "",
  "| measure | result | target |",
  "|---|---|---|",
  `| branch moved | ${r.moved.toLocaleString("en")} nodes (${r.nodes.toLocaleString("en")} entities + categories), ${r.batches} transactions of ${r.batch_size}, ${r.pause_ms} ms pauses | |`,
  `| consolidation wall time | ${r.consolidate_s} s | |`,
  `| reader queries meanwhile (another process) | ${r.reader_queries.toLocaleString("en")} | |`,
  `| reader latency p50 / p99 / max | ${r.reader_p50_ms} / ${r.reader_p99_ms} / ${r.reader_max_ms} ms | p99 < 20 ms |`,
  `| reader SQLITE_BUSY errors | ${r.busy_errors} | 0 |`,
  `| every node under the target afterwards, nothing else moved | ${r.verified ? "yes" : "NO"} | yes |`,
];
console.log(lines.join("\n"));
