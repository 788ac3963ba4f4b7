#!/usr/bin/env bash
# The protocol fuzzer's long run (docs/robustness.md, "Protocol fuzzer"): vitrine-fuzz against vitrine run
# --headless, restarting the compositor after each failure so that the run counts them all, with
# memory allowed to grow by at most 32 MiB after the first 500 iterations. Prints the figures
# docs/robustness.md reports and writes the round-trip probes' descriptor and memory samples to
# .build/fuzz-samples.csv. Usage: benchmarks/fuzz.sh [SEED [ITERATIONS [CLIENTS]]] (default 1 100000 16).
set -euo pipefail
cd "$(dirname "$0")/.."

seed=${1:-1}
iterations=${2:-100000}
clients=${3:-16}
swift build --product vitrine
swift build --product vitrine-fuzz
exec .build/debug/vitrine-fuzz --seed "$seed" --iterations "$iterations" --clients "$clients" --keep-going \
    --resident-growth-limit 32 --samples .build/fuzz-samples.csv
