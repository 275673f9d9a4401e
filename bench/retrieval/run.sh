#!/usr/bin/env bash
# Retrieval quality and speed on the dev split: LoCoMo (turn level) and LongMemEval_S (session level),
# hybrid (bundled model vectors) and BM25 alone. Writes bench/results/retrieval-*.json and a Markdown
# table, bench/results/retrieval.md. DATA defaults to ../shared/data; vectors are cached in
# ~/.cache/gllam/vector-cache.sqlite, so only the first run pays for embedding every turn.
set -euo pipefail
cd "$(dirname "$0")/../.."
data=${DATA:-../shared/data}
out=bench/results
mkdir -p "$out"
gllam() { bun src/cli/main.ts "$@"; }

gllam bench retrieval --dataset locomo --data "$data/locomo/locomo_dev5.json" --json "$out/retrieval-locomo.json" >/dev/null
gllam bench retrieval --dataset locomo --data "$data/locomo/locomo_dev5.json" --bm25-only --json "$out/retrieval-locomo-bm25.json" >/dev/null
gllam bench retrieval --dataset longmemeval --data "$data/longmemeval/longmemeval_s_dev.json" --json "$out/retrieval-longmemeval.json" >/dev/null
gllam bench retrieval --dataset longmemeval --data "$data/longmemeval/longmemeval_s_dev.json" --bm25-only --json "$out/retrieval-longmemeval-bm25.json" >/dev/null

bun -e '
const dir = process.argv[1];
const read = (name) => JSON.parse(require("node:fs").readFileSync(`${dir}/retrieval-${name}.json`, "utf8"));
const f = (x) => (typeof x === "number" ? x.toFixed(3) : "");
const lines = [];
for (const [dataset, metrics] of [["locomo", ["recall@5", "recall@10", "recall@20"]], ["longmemeval", ["recall_any@5", "recall_all@5", "ndcg_any@10", "recall_all@10"]]]) {
  for (const variant of ["", "-bm25"]) {
    const r = read(dataset + variant);
    lines.push(`### ${dataset} — ${variant ? "BM25 only" : "hybrid (" + r.embedder + ")"}: ${r.questions} questions, ${r.turns} turns`, "");
    lines.push(`| category | questions | ${metrics.join(" | ")} |`, `|---|---|${metrics.map(() => "---").join("|")}|`);
    lines.push(`| **overall** | ${r.questions} | ${metrics.map((m) => f(r.overall[m])).join(" | ")} |`);
    for (const [name, c] of Object.entries(r.by_category)) lines.push(`| ${name} | ${c.questions} | ${metrics.map((m) => f(c[m])).join(" | ")} |`);
    lines.push("", `ingest ${r.ingest_turns_per_s} turns/s (relational + FTS${variant ? "" : " + static vectors"}); static embedding ${r.embed_turns_per_s} turns/s, bundled model ${r.model_embed_turns_per_s} turns/s; recall p50/p95 ${r.recall_p50_ms}/${r.recall_p95_ms} ms with the query embedding, ${r.search_p50_ms}/${r.search_p95_ms} ms without`, "");
  }
}
require("node:fs").writeFileSync(`${dir}/retrieval.md`, lines.join("\n"));
console.log(lines.join("\n"));
' "$out"
