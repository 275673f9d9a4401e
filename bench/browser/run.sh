#!/usr/bin/env bash
# Memory browser page loads from the compiled binary on a large file: EPISODES generated turns
# (default 100,000, in 1,000 sessions over a year) ingested with the static tier, plus the sample
# graph; then `gllam serve` and bench/browser/load.ts time each view in chromium.
# Writes bench/results/browser.jsonl.
set -euo pipefail
cd "$(dirname "$0")/../.."
episodes=${EPISODES:-100000}

bun scripts/build.ts >/dev/null
work=$(mktemp -d)
server=""
trap '[ -n "$server" ] && kill "$server"; rm -rf "$work"' EXIT
cp dist/gllam "$work/gllam"
(cd "$work" && bun -e "
const w = Bun.file('turns.jsonl').writer();
const start = Date.parse('2025-01-01T00:00:00Z');
for (let i = 0; i < $episodes; i++) {
  const session = i % 1000;
  w.write(JSON.stringify({ session_id: 's-' + session, speaker: i % 2 ? 'Ann' : 'Bob', content: 'turn ' + i + ': Caddy proxies Grafana on homelab-01 and the backup of postgres runs at ' + (i % 24) + ':00', timestamp: new Date(start + Math.floor((i / $episodes) * 365 * 86400000)).toISOString() }) + '\n');
}
await w.end();")
(cd "$work" && ./gllam seed >/dev/null && ./gllam ingest turns.jsonl >/dev/null)
size=$(stat -c %s "$work/gllam.db")
(cd "$work" && exec ./gllam serve --port 0 --workers 0 2>"$work/serve.log") &
server=$!
until grep -q ' on http' "$work/serve.log" 2>/dev/null; do sleep 0.2; done
url=$(grep -o 'http://[^ ]*' "$work/serve.log" | head -1)
mkdir -p bench/results
echo "{\"episodes\": $episodes, \"file_bytes\": $size}" | tee bench/results/browser.jsonl
bun bench/browser/load.ts "$url" | tee -a bench/results/browser.jsonl
