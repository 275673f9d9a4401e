#!/usr/bin/env bash
# HTTP recall benchmark: gllam serve on synthetic memories of 10K and 100K turns, driven from this
# process (one client for latency, then --clients at once for throughput), with the static query
# embedding and with the bundled model. Extra arguments go to the driver (e.g. --requests 200).
# Writes bench/results/serve.json.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p bench/results
bun src/cli/main.ts bench serve --json bench/results/serve.json "$@"
