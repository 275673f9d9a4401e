#!/usr/bin/env bash
# Startup cost of the single executable: its size, and the median wall time of `gllam --help`
# (no model, no database) and of `gllam recall` on the sample memory (model load included),
# each run from a temporary folder outside the repo. Writes bench/results/startup.json.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${RUNS:-21}

bun scripts/build.ts >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp dist/gllam "$work/gllam"
cd "$work"
./gllam seed >/dev/null

median_ms() { # command... -> median wall time in ms over $runs runs
  local times=()
  for _ in $(seq "$runs"); do
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null
    end=$(date +%s%N)
    times+=($(((end - start) / 1000)))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v n="$runs" 'NR == int((n + 1) / 2) { printf "%.1f", $1 / 1000 }'
}

size=$(stat -c %s gllam)
help_ms=$(median_ms ./gllam --help)
recall_ms=$(median_ms ./gllam recall "web server")
cd - >/dev/null
mkdir -p bench/results
printf '{"binary_bytes": %s, "help_median_ms": %s, "recall_median_ms": %s, "runs": %s}\n' \
  "$size" "$help_ms" "$recall_ms" "$runs" | tee bench/results/startup.json
