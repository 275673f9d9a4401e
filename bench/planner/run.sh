#!/usr/bin/env bash
# The planner benchmark: every instance of a PDDL suite (default ../shared/data/pddl, laid out as
# <domain>/domain.pddl plus problems) with the native planner, the seed's BFS and, when FAST_DOWNWARD
# is set, Fast Downward lama-first and astar(blind()); 30 s per instance, one at a time.
# Writes bench/results/planner.json and bench/results/planner.md (the table for the README).
set -euo pipefail
cd "$(dirname "$0")/../.."
suite=${SUITE:-../shared/data/pddl}
mkdir -p bench/results
bun src/cli/main.ts bench planner --suite "$suite" --planner "${PLANNER:-all}" --timeout "${TIMEOUT:-30}" \
  --json bench/results/planner.json --markdown bench/results/planner.md
echo "wrote bench/results/planner.json and bench/results/planner.md"
