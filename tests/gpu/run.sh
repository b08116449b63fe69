#!/usr/bin/env bash
# The whole GPU suite in one call on the H200 (or any CUDA machine): builds kprof from the carried
# dependencies, runs the GoogleTest suite (GPU tests included) and the end-to-end scenarios of the
# issues, and prints a summary table. Usage (repo root):
#   tests/gpu/run.sh [stage ...]      stages: build unit env check sanitize py cutlass profile analyze run compare bench gemm runcmp seedstyle probe hotlines badinput gemmprog integrity throttle ncucache capture tensor sol solrules runspeed onesession scale decide wheel floor (default: all but ncucache, capture, tensor, sol, solrules, runspeed, onesession, scale, decide, wheel, floor; wheel needs dist/ carried: scripts/build-wheels.sh and scripts/prepare-offline-deps.sh)
# Logs and reports go to $OUT (the device tool's output folder) or ./gpu_out. UNIT_FILTER=REGEX runs only
# the GoogleTest cases it matches (prebuilt binary).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
# The device tool returns at most 8 files from $OUT: everything is written under a scratch folder
# and packed into $OUT/results.tgz at the end (plus summary.txt and build.log beside it).
RESULTS=${OUT:-$root/gpu_out}
OUT=/tmp/kprof_gpu_out
rm -rf "$OUT"
mkdir -p "$OUT" "$RESULTS"
stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(build unit env check sanitize py cutlass profile analyze run compare bench gemm runcmp seedstyle probe hotlines badinput gemmprog integrity throttle)
want() { local s; for s in "${stages[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }

SUMMARY="$OUT/summary.tsv"
: > "$SUMMARY"
export KPROF_COLOR=never
K="$root/build-gpu/kprof"
W="$OUT/work"          # scratch: reports, built .so files
mkdir -p "$W"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# scenario NAME EXPECTED_RC PATTERN -- command...   (PATTERN: egrep on stdout+stderr, '' = none)
scenario() {
  local name=$1 want_rc=$2 pattern=$3; shift 4
  local log="$W/$name.log" t0 t1 rc status
  t0=$(now)
  # SCENARIO_TIMEOUT (seconds, default 1200) bounds each scenario: a slow one fails, the rest still run.
  timeout -k 5 "${SCENARIO_TIMEOUT:-1200}" "$@" > "$log" 2>&1; rc=$?
  status=PASS
  [ "$rc" = "$want_rc" ] || status=FAIL
  if [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$log"; then status=FAIL; fi
  printf '%s\t%s\t%s\t%s\t%s\n' "$status" "$name" "$rc" "$want_rc" "$(elapsed "$t0")" >> "$SUMMARY"
  cp "$SUMMARY" "$RESULTS/summary.txt"  # kept as it grows: a call stopped by its time limit still returns it
  if [ $status = FAIL ]; then echo "---- FAIL $name (rc=$rc, want $want_rc, pattern '$pattern')"; tail -n 15 "$log"; fi
}

if [ -f .deps/cutlass.tar.xz ] && [ ! -d .deps/cutlass ]; then tar -C .deps -xJf .deps/cutlass.tar.xz; fi
# PyPI's CUPTI 13.5 (scripts/prepare-offline-deps.sh .whl-cupti/), first on the library path: the
# GPU-duration pass then also asks CUPTI to reset the L2 before each kernel (this machine's toolkit
# has CUPTI 13.0). A build here links it too (KPROF_CUPTI_DIR).
cupti_dir=
if ls .whl-cupti/*.whl > /dev/null 2>&1; then
  mkdir -p /tmp/kprof-cupti && python3 -c "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])" \
    "$(ls .whl-cupti/*.whl | head -n 1)" /tmp/kprof-cupti && cupti_dir=/tmp/kprof-cupti/nvidia/cu13/lib
  [ -f "$cupti_dir/libcupti.so.13" ] && export LD_LIBRARY_PATH=$cupti_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} || cupti_dir=
fi
# A kprof built elsewhere for this machine's Python (scripts/prebuild-gpu.sh: the same Python
# minor version, carried in .prebuilt/) saves the build (about 3 minutes of device time). It is
# used when it starts here; its built-in Python path does not exist here, so KPROF_PYTHON names
# this machine's python3.
prebuilt_ok() {  # built from these very sources (scripts/source-stamp.sh) and it starts here
  [ -x .prebuilt/kprof ] && [ -f .prebuilt/source.sha1 ] && [ "$(cat .prebuilt/source.sha1)" = "$(bash scripts/source-stamp.sh)" ] &&
    KPROF_PYTHON=$(command -v python3) .prebuilt/kprof --version > /dev/null 2>&1
}
if want build && [ -d .prebuilt ] && ! prebuilt_ok; then
  echo "note: .prebuilt/ does not match these sources or does not start here: building"
fi
if want build && prebuilt_ok; then
  mkdir -p build-gpu/tests
  cp .prebuilt/kprof build-gpu/kprof && touch build-gpu/.prebuilt
  [ -x .prebuilt/kprof_tests ] && cp .prebuilt/kprof_tests build-gpu/tests/kprof_tests
  printf 'PASS\tbuild (prebuilt: %s)\t0\t0\t0\n' "$(.prebuilt/kprof --version 2>/dev/null)" >> "$SUMMARY"
elif want build; then
  rm -f build-gpu/.prebuilt
  t0=$(date +%s)
  # No precompiled header here: on 16 cores the per-target header builds serialize more than they save.
  { cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKPROF_DEPS_DIR="$root/.deps" \
        -DPython3_EXECUTABLE="$(command -v python3)" -DCMAKE_CUDA_ARCHITECTURES="90" -DKPROF_PCH=OFF \
        ${cupti_dir:+-DKPROF_CUPTI_DIR=$cupti_dir} &&
    cmake --build build-gpu -j"$(nproc)" $(want unit || echo --target kprof); } > "$OUT/build.log" 2>&1
  rc=$?
  printf '%s\tbuild\t%s\t0\t%s\n' "$([ $rc = 0 ] && echo PASS || echo FAIL)" "$rc" "$(( $(date +%s) - t0 ))" >> "$SUMMARY"
  [ $rc = 0 ] || { tail -n 40 "$OUT/build.log"; exit 1; }
fi
# CuTe DSL wheels travel in two halves (.dsl1, .dsl2: one device call each, 64 MiB limit);
# the first half waits in /tmp/dsl-parts on the (still warm) machine for the second.
mkdir -p /tmp/dsl-parts
for d in .dsl1 .dsl2; do [ -d $d ] && cp $d/dsl.part.* /tmp/dsl-parts/ 2>/dev/null; done
if [ ! -d /tmp/dsl-site ] && [ -f /tmp/dsl-parts/dsl.part.00 ] && [ -f /tmp/dsl-parts/dsl.part.01 ]; then
  mkdir -p /tmp/dsl-site && cat /tmp/dsl-parts/dsl.part.* | xz -d | tar -C /tmp/dsl-site -xf - \
    && echo "CuTe DSL unpacked to /tmp/dsl-site"
fi
[ -d /tmp/dsl-site ] && export PYTHONPATH=/tmp/dsl-site/nvidia_cutlass_dsl/dsl_packages:/tmp/dsl-site${PYTHONPATH:+:$PYTHONPATH}
[ -d "$root/.deps/cutlass" ] && export CUTLASS_PATH="$root/.deps/cutlass"
[ -f build-gpu/.prebuilt ] && export KPROF_PYTHON=$(command -v python3)

# GoogleTest cases run one at a time, after the others: call times, device-wide free memory, and
# two `kprof env` runs compared (their counter probes under ncu).
ALONE='^(GpuTiming|GpuRounds|DeviceBuffersGpu|Trace)[.]'
if want unit && [ -f build-gpu/.prebuilt ] && [ ! -x build-gpu/tests/kprof_tests ]; then
  printf 'FAIL\tgtest (prebuilt: no .prebuilt/kprof_tests: run scripts/prebuild-gpu.sh)\t1\t0\t-\n' >> "$SUMMARY"
elif want unit && [ -f build-gpu/.prebuilt ]; then
  # The prebuilt test binary, one process per test as ctest runs them (4 at once, the timing tests
  # alone after); it names the kprof it runs by its build path (build-py312/kprof).
  mkdir -p build-py312 "$OUT/gtest" && cp build-gpu/kprof build-py312/kprof
  T=build-gpu/tests/kprof_tests
  # UNIT_FILTER (an extended regex on Suite.Name) runs only the tests it matches.
  $T --gtest_list_tests | awk '/^[^ ]/ { s = $1 } /^  / { print s $1 }' | grep -E "${UNIT_FILTER:-.}" > "$OUT/gtest/list"
  # One log per test, named after it with '/' (parameterized tests: Suite/Name.Case/param) as '_'.
  one() { "$T" --gtest_filter="$1" > "$OUT/gtest/${1//\//_}.log" 2>&1 || echo "$1" >> "$OUT/gtest/failed"; }
  export -f one; export T OUT ALONE
  # Alone, after the rest: the timing tests (in parallel they measure each other) and the buffer
  # tests that compare the GPU's free memory (device-wide: other tests' allocations move it).
  grep -Ev "$ALONE" "$OUT/gtest/list" | xargs -P4 -I{} bash -c 'one {}'
  grep -E "$ALONE" "$OUT/gtest/list" | xargs -P1 -I{} bash -c 'one {}'
  n=$(wc -l < "$OUT/gtest/list"); f=$( [ -f "$OUT/gtest/failed" ] && wc -l < "$OUT/gtest/failed" || echo 0)
  skipped=$(grep -l '\[  SKIPPED \]' "$OUT"/gtest/*.log 2>/dev/null | wc -l)
  printf '%s\tgtest (prebuilt: %s tests, %s failed, %s skipped)\t%s\t0\t-\n' "$([ "$f" = 0 ] && echo PASS || echo FAIL)" \
    "$n" "$f" "$skipped" "$f" >> "$SUMMARY"
  [ -f "$OUT/gtest/failed" ] && head -20 "$OUT/gtest/failed"
elif want unit; then
  # Timing tests compare call times, buffer tests the GPU's free memory: run them alone, after the rest.
  # UNIT_FILTER (a ctest regex on Suite.Name) runs only the tests it matches, one at a time.
  if [ -n "${UNIT_FILTER:-}" ]; then
    (cd build-gpu && ctest --output-on-failure -j1 -R "$UNIT_FILTER" > "$OUT/ctest.log" 2>&1); rc=$?
  else
  (cd build-gpu && { ctest --output-on-failure -j4 -E "$ALONE" > "$OUT/ctest.log" 2>&1; r=$?
     ctest --output-on-failure -j1 -R "$ALONE" >> "$OUT/ctest.log" 2>&1 && exit $r; }); rc=$?
  fi
  printf '%s\tctest (%s)\t%s\t0\t-\n' "$([ $rc = 0 ] && echo PASS || echo FAIL)" \
    "$(grep -Eo '[0-9]+% tests passed.*' "$OUT/ctest.log" | paste -sd' ')" "$rc" >> "$SUMMARY"
  grep -E "Failed|SKIPPED|\*\*\*" "$OUT/ctest.log" | head -20
  cp "$OUT/ctest.log" "$RESULTS/" 2>/dev/null  # back even when a later stage runs out of time
fi

source "$root/tests/gpu/scenarios.sh"

echo
echo "== kprof GPU suite: $(date -u '+%Y-%m-%d %H:%M UTC') on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
awk -F'\t' 'BEGIN { printf "%-6s %-58s %-4s %-5s %s\n", "result", "scenario", "exit", "want", "seconds" }
             { printf "%-6s %-58s %-4s %-5s %s\n", $1, $2, $3, $4, $5 }' "$SUMMARY"
echo "passed: $(grep -c '^PASS' "$SUMMARY")  failed: $(grep -c '^FAIL' "$SUMMARY")"
cp "$SUMMARY" "$RESULTS/summary.txt"
cp "$OUT/build.log" "$RESULTS/" 2>/dev/null
tar -C "$OUT" -czf "$RESULTS/results.tgz" --exclude='*.so' . && echo "results: $RESULTS/results.tgz"
