#!/usr/bin/env bash
# One scope grown to 10K, 100K and 1M turns (SIZES to change) from the dev LoCoMo conversations
# replicated, then the worker pool against the model on one thread. Writes bench/results/scale.json,
# bench/results/scale.svg (the plot README shows) and bench/results/pool.json. DATA defaults to
# ../shared/data. The 1M size needs ~2 GB of disk and about ten minutes on two cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
data=${DATA:-../shared/data}
out=bench/results
mkdir -p "$out"
gllam() { bun src/cli/main.ts "$@"; }

gllam bench scale --data "$data/locomo/locomo_dev5.json" --sizes "${SIZES:-10000,100000,1000000}" --json "$out/scale.json" --plot "$out/scale.svg" >/dev/null
gllam bench pool --data "$data/locomo/locomo_dev5.json" --json "$out/pool.json" >/dev/null
echo "wrote $out/scale.json, $out/scale.svg, $out/pool.json (load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown))"
