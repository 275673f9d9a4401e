#!/usr/bin/env bash
# Taxonomy consolidation benchmark: a branch of --nodes nodes (default 100K) moved under another
# in 500-row transactions with 10 ms pauses while a second process reads the same file.
# Extra arguments go to the driver (e.g. --nodes 20000 --batch 1000 --pause 5).
# Writes bench/results/taxonomy.json and the Markdown table bench/results/taxonomy.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p bench/results
bun src/cli/main.ts bench taxonomy --json bench/results/taxonomy.json "$@" >/dev/null
bun bench/taxonomy/table.ts bench/results/taxonomy.json | tee bench/results/taxonomy.md
