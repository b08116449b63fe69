#!/usr/bin/env bash
# kprof's mutation fuzzers on demand (tests/fuzz/fuzz.py; issue 50). CI runs a short pass through
# ctest (FuzzShort); this is the long one, at the lowest priority so it can run beside other work:
#
#   bash scripts/fuzz.sh                    # every target, 10 minutes each, random seed
#   FUZZ_SECONDS=3600 bash scripts/fuzz.sh --target csv
#   bash scripts/fuzz.sh --replay           # the committed regressions only
#   FUZZ_TOTAL_SECONDS=3600 bash scripts/fuzz.sh   # one hour in all, shared by the targets that run
#
# KPROF: the kprof binary (default build/kprof). Inputs that fail an oracle are saved under
# tests/fuzz/regressions/<target>/: commit them (they are replayed by CI from then on). Prints the
# JSON summary (runs, exits by code, internal errors, verdicts on impossible values, gates passed on
# garbage, hangs, peak memory) and exits 1 when any oracle failed.
set -euo pipefail
cd "$(dirname "$0")/.."
KPROF=${KPROF:-build/kprof}
[ -x "$KPROF" ] || { echo "error: $KPROF not built (cmake --build build --target kprof)" >&2; exit 2; }
# FUZZ_TOTAL_SECONDS=3600: one hour shared by the targets that run (instead of FUZZ_SECONDS each).
if [ -n "${FUZZ_TOTAL_SECONDS:-}" ]; then
  exec nice -n 19 python3 tests/fuzz/fuzz.py --kprof "$KPROF" --total-seconds "$FUZZ_TOTAL_SECONDS" "$@"
fi
exec nice -n 19 python3 tests/fuzz/fuzz.py --kprof "$KPROF" --seconds "${FUZZ_SECONDS:-600}" "$@"
