#!/usr/bin/env bash
# Times and profiles the six versions of the SGEMM progression (examples/gemm_progression/) on a GPU
# machine (the H200 of docs/gpu-runs.md), outside kprof, with the plain host driver
# bench/gemm_driver.cu. It is the ground truth that kprof's reports on the same kernels are compared
# with. For each version vN:
#   1. OUTDIR/check_vN.log: `gemm_driver SO M N K once`, one solve() and a 64-element check (PASS/FAIL);
#   2. OUTDIR/time_vN.log and a line "vN MEDIAN_MS" in OUTDIR/times.tsv (FAIL instead of a time if the
#      timing run failed): `gemm_driver SO M N K time`, median of 20 CUDA-event-timed calls;
#   3. OUTDIR/gemm_vN.ncu-rep and OUTDIR/ncu_vN.log: one `ncu --set full --import-source yes` capture
#      of the single solve() of `once` mode, clocks untouched (--clock-control none), with the extra
#      LSU / MIO / shared-memory metrics below. If ncu fails with them (a metric name this ncu does not
#      know, with an ncu that rejects those; 2025.3.1 records them as n/a instead, and capture.log lists
#      them up front), the capture is retried once without --metrics; capture.log says so.
# A failing version is logged in OUTDIR/capture.log and the others still run. Ends by printing
# times.tsv. Usage (repo root or anywhere):
#   scripts/capture-gemm-reports.sh OUTDIR [SIZE]     # M = N = K = SIZE, default 4096
set -uo pipefail

out=${1:?usage: $0 OUTDIR [SIZE]}
size=${2:-4096}
case $size in '' | *[!0-9]* | 0*) echo "SIZE must be a positive integer (got '$size')" >&2; exit 2 ;; esac
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
src="$root/examples/gemm_progression"

case ":$PATH:" in *:/usr/local/cuda/bin:*) ;; *) PATH="$PATH:/usr/local/cuda/bin" ;; esac
export PATH

log="$out/capture.log"
: > "$log"
note() { echo "$*" | tee -a "$log"; }

for tool in nvcc ncu; do
  if ! command -v "$tool" > /dev/null; then note "error: $tool not found on PATH ($PATH)"; exit 2; fi
done
note "capture-gemm-reports: M=N=K=$size, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nvcc --version | tail -1), $(ncu --version | tail -1)"
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> "$log" 2>&1

bin="$out/bin"
mkdir -p "$bin"
driver="$bin/gemm_driver"
if ! nvcc -O3 -arch=sm_90 "$root/bench/gemm_driver.cu" -o "$driver" -ldl > "$out/build_driver.log" 2>&1; then
  note "error: building bench/gemm_driver.cu failed (build_driver.log):"
  tail -20 "$out/build_driver.log" | tee -a "$log"
  exit 1
fi

metrics=sm__inst_executed_op_global_ld.sum,smsp__inst_executed_op_global_ld.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,smsp__inst_executed_op_global_st.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__inst_executed_pipe_fma.sum,sm__mio_inst_issued.avg.pct_of_peak_sustained_active,sm__mio2rf_writeback_active.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed,l1tex__lsuin_requests.avg.pct_of_peak_sustained_elapsed,l1tex__t_sectors.sum,l1tex__t_requests.sum,smsp__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active

# ncu (2025.3.1 at least) does not fail on a metric name the device lacks: it records "n/a" for it.
# Say which ones will be n/a up front. sm__inst_executed_op_global_ld does not exist on GH100 with
# ncu 2025.3.1; sm__sass_inst_executed_op_global_ld, appended here, counts the same LDG instructions.
metrics="$metrics,sm__sass_inst_executed_op_global_ld.sum"
if ncu --query-metrics > "$out/query_metrics.log" 2>&1; then
  for m in ${metrics//,/ }; do
    grep -qE "^${m%%.*}[[:space:]]" "$out/query_metrics.log" ||
      note "note: metric $m is not in 'ncu --query-metrics' for this device: it will read n/a"
  done
else
  note "note: ncu --query-metrics failed (query_metrics.log); metric names not checked"
fi

times="$out/times.tsv"
: > "$times"
versions="v0_naive v1_coalesced v2_smem v3_blocktile1d v4_blocktile2d v5_vectorized"
failed=0
for name in $versions; do
  v=${name%%_*}
  so="$bin/$name.so"
  note "== $v ($name.cu)"
  if ! nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -lineinfo -Xptxas -v -o "$so" "$src/$name.cu" > "$out/build_$v.log" 2>&1; then
    note "  build FAILED (build_$v.log); skipped"
    echo "$v FAIL" >> "$times"
    failed=$((failed + 1))
    continue
  fi

  "$driver" "$so" "$size" "$size" "$size" once > "$out/check_$v.log" 2>&1
  rc=$?
  note "  check: rc=$rc $(grep -E '^(PASS|FAIL)' "$out/check_$v.log" || tail -1 "$out/check_$v.log")"
  [ "$rc" -eq 0 ] || failed=$((failed + 1))

  "$driver" "$so" "$size" "$size" "$size" time > "$out/time_$v.log" 2>&1
  rc=$?
  line=$(grep -E '^median_ms=' "$out/time_$v.log")
  if [ "$rc" -eq 0 ] && [ -n "$line" ]; then
    median=$(sed -E 's/^median_ms=([^ ]+).*/\1/' <<< "$line")
    echo "$v $median" >> "$times"
    note "  time: $line"
  else
    echo "$v FAIL" >> "$times"
    note "  time FAILED: rc=$rc (time_$v.log): $(tail -1 "$out/time_$v.log")"
    failed=$((failed + 1))
  fi

  # Success is judged by the report: ncu also exits non-zero when the profiled program does (a
  # FAIL of the check), which is no reason to drop the metrics.
  rep="$out/gemm_$v"
  rm -f "$rep.ncu-rep"
  ncu --clock-control none --set full --import-source yes --metrics "$metrics" -k regex:sgemm -c 1 -f \
      -o "$rep" "$driver" "$so" "$size" "$size" "$size" once > "$out/ncu_$v.log" 2>&1
  rc=$?
  if [ ! -s "$rep.ncu-rep" ] || grep -qiE '==ERROR==.*metric' "$out/ncu_$v.log"; then
    note "  ncu with --metrics FAILED (rc=$rc, ncu_${v}_with_metrics.log: $(grep -m1 -E '==ERROR==' "$out/ncu_$v.log" || tail -1 "$out/ncu_$v.log")); retrying without --metrics"
    mv -f "$out/ncu_$v.log" "$out/ncu_${v}_with_metrics.log"
    rm -f "$rep.ncu-rep"
    ncu --clock-control none --set full --import-source yes -k regex:sgemm -c 1 -f \
        -o "$rep" "$driver" "$so" "$size" "$size" "$size" once > "$out/ncu_$v.log" 2>&1
    rc=$?
    if [ ! -s "$rep.ncu-rep" ]; then
      note "  ncu without --metrics FAILED too (rc=$rc, ncu_$v.log): $(grep -m1 -E '==ERROR==' "$out/ncu_$v.log" || tail -1 "$out/ncu_$v.log")"
      failed=$((failed + 1))
      continue
    fi
    note "  ncu: gemm_$v.ncu-rep WITHOUT the extra --metrics (--set full only), rc=$rc"
  else
    note "  ncu: gemm_$v.ncu-rep (--set full + extra metrics), rc=$rc"
  fi
  grep -qE '^FAIL' "$out/ncu_$v.log" && note "  warning: the solve() profiled under ncu gave FAIL (ncu_$v.log)"
done

note "== done: $failed problem(s); logs in $out/*.log"
echo "-- $times"
cat "$times"
[ "$failed" -eq 0 ]
