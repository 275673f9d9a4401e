#!/usr/bin/env bash
# Extraction benchmark: the dev LoCoMo conversations (DATA, default ../shared/data/locomo/locomo_dev5.json)
# ingested into a fresh file and extracted through the tests' OpenAI-compatible stub with zero
# latency (test/llm/stub-server.ts, answers generated from each prompt's turns), once without and
# once with the FAST fallacy judge. Reports GLLAM's own overhead per turn (target < 5 ms) and the
# prompt/completion tokens per 1,000 turns. Extra arguments go to the driver (e.g. --conversations 1).
# Writes bench/results/extract.json, extract-judge.json and extract.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p bench/results
data=${DATA:-../shared/data/locomo/locomo_dev5.json}
script=$(mktemp)
trap 'kill "$stub_pid" 2>/dev/null || true; rm -f "$script" "$script.url" "$script.log"' EXIT
echo '{"rules":[{"matchAny":"logical fallacies","reply":{"json":{"findings":[]}}},{"reply":{"generate":"extraction"}}]}' >"$script"
bun test/llm/stub-server.ts --script "$script" >"$script.url" &
stub_pid=$!
until [ -s "$script.url" ]; do sleep 0.1; done
url=$(head -1 "$script.url")
bun src/cli/main.ts bench extract --data "$data" --llm-server "$url" --json bench/results/extract.json "$@" >/dev/null 2>"$script.log" || { cat "$script.log"; exit 1; }
bun src/cli/main.ts bench extract --data "$data" --llm-server "$url" --judge --json bench/results/extract-judge.json "$@" >/dev/null 2>"$script.log" || { cat "$script.log"; exit 1; }
bun -e '
const runs = [await Bun.file("bench/results/extract.json").json(), await Bun.file("bench/results/extract-judge.json").json()];
const load = (await Bun.file("/proc/loadavg").text().catch(() => "?")).split(" ")[0];
console.log(`# Extraction benchmark (${new Date().toISOString().slice(0, 10)}, load average ${load} at the end)\n`);
console.log(`${runs[0].conversations} LoCoMo conversations, ${runs[0].sessions} sessions, ${runs[0].turns} turns; zero-latency stub, concurrency ${runs[0].concurrency}\n`);
console.log("| fallacy judge | facts | requests | GLLAM overhead per turn (target < 5 ms) | CPU per turn | prompt tokens / 1,000 turns | completion tokens / 1,000 turns |\n|---|---|---|---|---|---|---|");
for (const r of runs) console.log(`| ${r.fallacy_judge} | ${r.facts} | ${r.requests} | ${r.overhead_ms_per_turn} ms | ${r.cpu_ms_per_turn} ms | ${r.prompt_tokens_per_1000_turns.toLocaleString("en")} | ${r.completion_tokens_per_1000_turns.toLocaleString("en")} |`);
' | tee bench/results/extract.md
