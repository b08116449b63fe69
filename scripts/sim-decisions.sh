#!/usr/bin/env bash
# The full table of kprof's simulation suite (tests/sim, docs/decisions-sim.md): false decisions
# between identical versions per candidate and per family of 20, and power at +-1/2/3/5/10%, for
# every path (run's default, --decide, --confirm, 10 rounds, compare, compare's vs-first column,
# the gate) under every model. On demand (about 10-20 minutes of CPU), run at low priority.
#   scripts/sim-decisions.sh [BUILD_DIR] [OUT.md] [extra kprof_sim arguments]
# THREADS (default 2) sets the worker threads.
set -euo pipefail
build=${1:-build}
out=${2:-sim-decisions.md}
shift $(( $# > 2 ? 2 : $# )) || true
cmake --build "$build" --target kprof_sim >/dev/null
exec nice -n 19 "$build/tests/kprof_sim" --threads "${THREADS:-2}" --reps 1000 --family-reps 200 --power-reps 400 \
  --out "$out" "$@"
