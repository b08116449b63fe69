#!/usr/bin/env bash
# The sanitizer build (issue 50): kprof and its C++ suite built with AddressSanitizer and
# UndefinedBehaviorSanitizer in a folder of their own (build-asan/: a full rebuild, about as long as
# the normal one, run niced), then the C++ suite and the fuzzers' corpus replayed through it.
#
#   bash scripts/sanitize.sh                      # build, then ctest -L '' and the corpus replay
#   SANITIZE_TESTS='Garbage*:RangeByMeaning*' bash scripts/sanitize.sh   # a gtest filter instead
#   SANITIZE_BUILD_ONLY=1 bash scripts/sanitize.sh   # the build alone
#
# Leaks are reported (detect_leaks stays on) except the few named, with their reasons, in
# tests/fuzz/lsan.supp; UBSan stops at its first finding (halt_on_error) and its suppressions are
# tests/fuzz/ubsan.supp. On demand: CI does not run it (a second full build of the 2-core machine).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${SANITIZE_BUILD:-build-asan}
export PATH=/usr/local/cuda/bin:$PATH
# Build type Sanitize (no flags of its own) with -O1 -g1: what ASan advises (readable stacks),
# and faster to build than -O2 on the 2-core machine.
FLAGS="-O1 -g1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
# The shared ccache when there is one (a second run rebuilds only what changed); the precompiled
# header stays on (built with the same flags, it is most of what a 2-core build saves).
LAUNCH=()
if command -v ccache >/dev/null; then
  LAUNCH=("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache" "-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache")
fi
nice -n 19 cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Sanitize "${LAUNCH[@]}" \
  -DCMAKE_CXX_FLAGS="$FLAGS" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
nice cmake --build "$BUILD" -j"${SANITIZE_JOBS:-2}" --target kprof
nice cmake --build "$BUILD" -j"${SANITIZE_JOBS:-2}" --target kprof_tests kprof_sim
[ -n "${SANITIZE_BUILD_ONLY:-}" ] && exit 0
# A finding exits 86 (not 1, which kprof's own failures use), so the tests and the fuzzers' oracle
# (exit 0, 1 or 2 only; no "ERROR: AddressSanitizer" or "runtime error:") see it.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:detect_odr_violation=0:exitcode=86:${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$ROOT/tests/fuzz/lsan.supp:print_suppressions=1"
export UBSAN_OPTIONS="suppressions=$ROOT/tests/fuzz/ubsan.supp:print_stacktrace=1:halt_on_error=1:exitcode=86"
status=0
if [ -n "${SANITIZE_TESTS:-}" ]; then
  "$BUILD/kprof_tests" --gtest_filter="$SANITIZE_TESTS" || status=1
else
  # Left out: the Slurm end-to-end test and the fuzzers (run below on the corpus), and the tests
  # whose time limit is for an optimised build (a million samples compared or bootstrapped).
  ctest --test-dir "$BUILD" -j"${SANITIZE_JOBS:-2}" --output-on-failure \
    -E 'SlurmEndToEnd|Fuzz|InSecondsAndLinearly|InMoments' || status=1
fi
python3 tests/fuzz/fuzz.py --kprof "$BUILD/kprof" --replay --timeout 300 || status=1
exit $status
