# End-to-end scenarios of the GPU suite, sourced by tests/gpu/run.sh (uses: want, scenario, $K, $W, $OUT).
# Each: scenario NAME EXPECTED_EXIT_CODE 'egrep pattern on the output' -- command...
E=examples
B=bench/kernels
VREF=$E/cuda/vector_add/ref.py

build_so() {  # kprof build for every .cu given, in parallel
  local f
  for f in "$@"; do
    ( "$K" build "$f" > "$W/build_$(basename "$f" .cu).log" 2>&1 || echo "build failed: $f" ) &
  done
  wait
}

if want env; then
  scenario env 0 'H200' -- "$K" env -o "$OUT/env/env_check.md"
  cp "$OUT/env/env_check.md" "$OUT/env_check.md" 2>/dev/null
  scenario env-json 0 '"ready": true' -- "$K" env -o "$W/envj/env_check.md" --json
  scenario clocks-dry-run 0 'would' -- "$K" clocks --lock --dry-run
  scenario env-bad-option 2 '' -- "$K" env --gpu -3
fi

# Every stage that runs a .cu example needs its .so: built once, whichever of them is asked for.
if want check || want profile || want analyze || want run || want bench || want runcmp; then
  build_so $E/cuda/vector_add/vector_add.cu $E/cuda/softmax/softmax.cu $E/cuda/matmul/matmul.cu \
           $E/broken/*.cu $E/softmax_versions/v*.cu $B/*.cu
fi

if want check; then
  for n in 1000 1048576 1000003; do
    scenario check-vadd-$n 0 'PASS' -- "$K" check $E/cuda/vector_add/vector_add.cu --ref $VREF --N=$n -o "$W/vadd$n"
  done
  t0=$(now)
  scenario check-vadd-64Mi 0 'PASS' -- "$K" check $E/cuda/vector_add/vector_add.cu --ref $VREF --N=67108864 -o "$W/vadd64"
  echo "wall time of kprof check on the 64 Mi vector add: $(elapsed "$t0") s" | tee "$OUT/check_walltime.txt"
  for nd in "333 1000" "1024 1024" "7 4097"; do set -- $nd
    scenario check-softmax-$1x$2 0 'PASS' -- "$K" check $E/cuda/softmax/softmax.cu --ref $E/cuda/softmax/ref.py \
      --N=$1 --D=$2 --size input=N*D --size output=N*D -o "$W/sm$1"
  done
  for mkn in "100 77 130" "256 256 256" "1000 700 500"; do set -- $mkn
    scenario check-matmul-$1x$2x$3 0 'PASS' -- "$K" check $E/cuda/matmul/matmul.cu --ref $E/cuda/matmul/ref.py \
      --M=$1 --K=$2 --N=$3 --size A=M*K --size B=K*N --size C=M*N -o "$W/mm$1"
  done
  scenario broken-wrong 1 'outside atol' -- "$K" check $E/broken/wrong_result.cu --ref $VREF --N=100000 -o "$W/b1"
  scenario broken-unwritten 1 'never written' -- "$K" check $E/broken/unwritten.cu --ref $VREF --N=100000 -o "$W/b2"
  scenario broken-overflow 1 'past the end' -- "$K" check $E/broken/overflow.cu --ref $VREF --N=100000 -o "$W/b3"
  scenario broken-launch 1 'launch error|launching solve' -- "$K" check $E/broken/bad_launch.cu --ref $VREF --N=100000 -o "$W/b4"
  scenario broken-modifies 1 "input 'A' modified" -- "$K" check $E/broken/modifies_input.cu --ref $VREF --N=100000 -o "$W/b5"
  scenario broken-hang 1 'did not finish' -- timeout 60 "$K" check $E/broken/hang.cu --ref $VREF --N=1000 --timeout 5 -o "$W/b6"
  scenario broken-illegal 1 'cudaErrorIllegalAddress|illegal' -- "$K" check $E/broken/illegal_address.cu --ref $VREF --N=1000 -o "$W/b7"
  scenario broken-ref-raises 2 'ZeroDivisionError' -- "$K" check $E/cuda/vector_add/vector_add.cu --ref $E/broken/ref_raises.py --N=1000 -o "$W/b8"
  scenario broken-ref-missing 2 'reference' -- "$K" check $E/cuda/vector_add/vector_add.cu --ref $E/broken/ref_no_reference.py --N=1000 -o "$W/b9"
  scenario missing-dim 2 'missing dimension' -- "$K" check $E/cuda/vector_add/vector_add.cu --ref $VREF -o "$W/b10"
  scenario missing-so 2 'nvcc' -- "$K" check $E/broken/wrong_result.cu --so /nonexistent.so --ref $VREF --N=10 -o "$W/b11"
  for f in $B/memory_bound $B/compute_bound $B/latency_bound $B/occupancy_bound; do
    scenario check-$(basename $f) 0 'PASS' -- "$K" check $f.cu --ref ${f}_ref.py --N=1048576 -o "$W/$(basename $f)"
  done
fi

if want py; then
  T=$E/triton
  scenario triton-vadd 0 'PASS' -- "$K" check $T/vector_add/vector_add.py --ref $T/vector_add/ref.py --N=1000003 -o "$W/tv"
  scenario triton-softmax 0 'PASS' -- "$K" check $T/softmax/softmax.py --ref $T/softmax/ref.py --N=4096 --D=1000 -o "$W/ts"
  scenario triton-matmul 0 'PASS' -- "$K" check $T/matmul/matmul.py --ref $T/matmul/ref.py --M=1000 --N=1000 --K=1000 -o "$W/tm"
  scenario triton-masked-ok 0 'PASS' -- "$K" check $T/masked_bug/masked_bug.py --ref $T/vector_add/ref.py --N=1048576 -o "$W/tmb1"
  scenario triton-masked-bug 1 'never written|outside' -- "$K" check $T/masked_bug/masked_bug.py --ref $T/vector_add/ref.py --N=1000000 -o "$W/tmb2"
  scenario triton-bad-setup 2 'setup' -- "$K" check $T/bad_setup/bad_setup.py --ref $T/vector_add/ref.py --N=4096 -o "$W/tbs"
  scenario triton-matmul-profile 0 'Bound|Mixed' -- "$K" profile $T/matmul/matmul.py --M=4096 --N=4096 --K=4096 -o "$OUT/triton_matmul"
  if python3 -c 'import cutlass.cute' 2>/dev/null; then
    C=$E/cute_dsl/elementwise_add
    scenario cute-dsl-check 0 'PASS' -- "$K" check $C/elementwise_add.py --implementation cute-dsl --ref $C/ref.py --M=1000 --N=1000 -o "$W/cd1"
    scenario cute-dsl-profile 0 'Bound|Mixed' -- "$K" profile $C/elementwise_add.py --implementation cute-dsl --M=4096 --N=4096 -o "$W/cd2"
  else
    printf 'SKIP\tcute-dsl (cutlass.cute not importable: carry .dsl1/.dsl2)\t-\t-\t-\n' >> "$SUMMARY"
  fi
fi

if want cutlass; then
  G=$E/cutlass/gemm
  scenario cutlass-build 0 'nvcc' -- "$K" build $G/gemm.cu --implementation cutlass
  scenario cutlass-check-4096 0 'PASS' -- "$K" check $G/gemm.cu --implementation cutlass --ref $G/ref.py --M=4096 --N=4096 --K=4096 --size A=M*K --size B=K*N --size C=M*N -o "$W/cg1"
  scenario cutlass-check-ragged 0 'PASS' -- "$K" check $G/gemm.cu --implementation cutlass --ref $G/ref.py --M=1000 --N=1001 --K=999 --size A=M*K --size B=K*N --size C=M*N -o "$W/cg2"
  scenario cutlass-profile 0 'Bound|Mixed' -- "$K" profile $G/gemm.cu --implementation cutlass --M=4096 --N=4096 --K=4096 --size A=M*K --size B=K*N --size C=M*N -o "$OUT/cutlass_gemm"
fi

if want profile; then
  scenario profile-vadd-64Mi 0 'Memory-Bound' -- "$K" profile $E/cuda/vector_add/vector_add.cu --N=67108864 -o "$OUT/vadd"
  # No counter permission (ncu's own message, from a stand-in): exit 1, the fix, the kernels that did
  # launch, and the timing still written.
  scenario profile-noperm 1 'did launch.*vector_add_kernel' -- env KPROF_NCU="$PWD/tests/gpu/fake_ncu_noperm.sh" \
    "$K" profile $E/cuda/vector_add/vector_add.cu --N=1048576 -o "$W/noperm"
  scenario profile-noperm-hint 0 'NVreg_RestrictProfilingToAdminUsers' -- cat "$W/profile-noperm.log"
  scenario profile-noperm-timing 0 'Execution time' -- cat "$W/noperm/ncu_summary.md"
fi

if want analyze; then
  scenario analyze-rep 0 'Memory-Bound' -- "$K" analyze "$OUT/vadd/profile.ncu-rep" -o "$W/an1"
  ncu --clock-control none --csv --page raw --profile-from-start off "$K" __runner $E/cuda/vector_add/vector_add.cu --N=16777216 \
    > "$OUT/vadd_basic.raw.csv" 2> "$W/basic.err"
  scenario analyze-basic 0 'missing|not collected' -- "$K" analyze "$OUT/vadd_basic.raw.csv" -o "$W/an2"
fi

if want run; then
  S=$E/softmax_versions
  scenario run-softmax 0 'fastest' -- "$K" run $S/v0.cu $S/v1.cu $S/v2.cu --ref $S/ref.py --N=4096 --D=1024 \
    --size input=N*D --size output=N*D -o "$OUT/run_softmax"
  # One version does not build, one is wrong: both get their row, the good one is still profiled.
  scenario run-resilient 1 'compile_error.*ERROR' -- "$K" run $E/cuda/vector_add/vector_add.cu \
    $E/broken/compile_error.cu $E/broken/wrong_result.cu --build --ref $VREF --N=1048576 -o "$OUT/run_resilient"
  scenario run-resilient-table 0 'ERROR \(load\).*nvcc' -- cat "$OUT/run_resilient/comparison.md"
  scenario run-resilient-profiled 0 'Bound|Mixed' -- cat "$OUT/run_resilient/vector_add/ncu_summary.md"
fi

if want bench; then
  scenario bench-timing 0 'Occupancy-Bound' -- python3 bench/bench_timing.py "$K" "$W/bench" 3
  cp "$W/bench/bench.md" "$OUT/bench.md" 2>/dev/null
  for c in Memory-Bound Compute-Bound Latency-Bound Occupancy-Bound; do
    scenario "bench-class-$c" 0 "\\| $c \\| $c \\|" -- cat "$W/bench/bench.md"
  done
fi

if want gemm; then  # issue 6: the CUTLASS GEMM next to torch.matmul (bench/bench_gemm_vs_torch.py)
  "$K" build $E/cutlass/gemm/gemm.cu --implementation cutlass > "$W/gemm_build.log" 2>&1
  scenario gemm-vs-torch 0 'torch.matmul' -- python3 bench/bench_gemm_vs_torch.py "$K" "$W" 4096 4096 4096
  cp "$W/gemm-vs-torch.log" "$OUT/gemm_vs_torch.md" 2>/dev/null
fi

if want runcmp; then  # issue 8: `kprof run` on four versions against env + 4 checks + 4 profiles one by one
  S=$E/softmax_versions
  V="$S/v0.cu $S/v1.cu $S/v2.cu $E/cuda/softmax/softmax.cu"
  D="--N=4096 --D=1024 --size input=N*D --size output=N*D"
  t0=$(now)
  scenario runcmp-run 0 'fastest' -- "$K" run $V --ref $S/ref.py $D -o "$W/runcmp"
  t_run=$(elapsed "$t0")
  t0=$(now)
  "$K" env -o "$W/steps/env_check.md" > /dev/null 2>&1
  for v in $V; do
    "$K" check $v --ref $S/ref.py $D -o "$W/steps/$(basename $v .cu)" > /dev/null 2>&1
    "$K" profile $v $D -o "$W/steps/$(basename $v .cu)" > /dev/null 2>&1
  done
  t_steps=$(elapsed "$t0")
  echo "kprof run on 4 versions: $t_run s; env + 4 check + 4 profile one after another: $t_steps s" | tee "$OUT/run_vs_steps.txt"
  cp "$W/runcmp/comparison.md" "$OUT/run4_comparison.md" 2>/dev/null
fi

if want probe; then  # issue 4: does CUPTI's kernel tracing change the kernel it times? (bench/cupti_probe.cu)
  P="$W/cupti_probe"
  nvcc -O3 -arch=sm_90 -o "$P" bench/cupti_probe.cu -lcupti > "$W/probe_build.log" 2>&1
  : > "$OUT/cupti_probe.tsv"
  for m in none conc serial kprof callbacks none conc kprof; do "$P" $m >> "$OUT/cupti_probe.tsv" 2>&1; done
  for m in none conc serial; do "$P" $m 100 noflush >> "$OUT/cupti_probe.tsv" 2>&1; done
  ncu --clock-control none --cache-control all --metrics gpu__time_duration.sum -k regex:vadd --csv \
      --print-units base "$P" none 5 > "$OUT/cupti_probe_ncu.csv" 2>&1
  scenario cupti-probe 0 'one_per_thread' -- cat "$OUT/cupti_probe.tsv"
  cat "$OUT/cupti_probe.tsv"
  python3 - "$OUT/cupti_probe_ncu.csv" <<'PY'
import csv, sys, statistics, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; d = collections.defaultdict(list)
for r in rows[1:]:
    rec = dict(zip(h, r))
    grid = rec.get("Grid Size", "")
    d[(rec["Kernel Name"].split("(")[0], grid)].append(float(rec["Metric Value"].replace(",", "")) / 1000)
for k, v in d.items(): print("ncu", k[0], "grid", k[1], "median_us %.2f" % statistics.median(v), "n", len(v))
PY
fi

if want capture; then  # issues 15/16: real reports of the planted kernels for the CPU tests (tests/data/ncurep)
  t0=$(now)
  scenario capture-planted 0 'divergent' -- scripts/capture-test-reports.sh "$OUT/ncurep"
  echo "capture wall time: $(elapsed "$t0") s"
  ls -la "$OUT/ncurep"
fi

if want tensor; then  # issue 16: which counters see Hopper's wgmma; the cuBLAS GEMM's clocks in and out of ncu
  mkdir -p "$OUT/ncurep"
  ncu --query-metrics --chip gh100 > "$W/metrics_gh100.txt" 2>&1
  grep -iE 'tensor|gmma|pipe_.*cycles_active|inst_executed_pipe' "$W/metrics_gh100.txt" > "$OUT/tensor_metrics.txt"
  G16="sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_gmma.sum,sm__inst_executed_pipe_tensor_op_hmma.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,gpc__cycles_elapsed.max,gpc__cycles_elapsed.avg.per_second,sm__cycles_elapsed.avg.per_second"
  scenario tensor-gemm-ncu 0 'gpu__time_duration' -- ncu --clock-control none --profile-from-start off \
    --metrics "$G16" --csv --print-units base python3 bench/gemm_once.py 8192
  cp "$W/tensor-gemm-ncu.log" "$OUT/tensor_gemm_ncu.csv"
  scenario tensor-gemm-clocks 0 'median_ms' -- python3 bench/gemm_clocks.py 8192 100
  cp "$W/tensor-gemm-clocks.log" "$OUT/gemm_clocks.json"
  scenario tensor-gemm-full 0 'sm90|gemm|nvjet' -- ncu --clock-control none --profile-from-start off --set full \
    -f -o "$OUT/ncurep/cublas_gemm_4096" python3 bench/gemm_once.py 4096
fi

if want badinput; then  # issue 14: solve() as nvcc compiles it, libraries read before the GPU, analyze at scale
  BI=tests/bad_inputs
  VI=tests/data/kernels/vadd_ifdef.cu
  # The same source built two ways: the signature follows the build's flags (recorded next to the .so).
  scenario badinput-ifdef-float 0 'PASS' -- "$K" check $VI --ref $VREF --N=1000003 --so "$W/vi_f.so" --build -o "$W/vif"
  scenario badinput-ifdef-float-buffers 0 'float32 x 1000003' -- cat "$W/vif/correctness.md"
  scenario badinput-ifdef-double 0 'PASS' -- "$K" check $VI --ref $VREF --N=1000003 --so "$W/vi_d.so" --build -o "$W/vid" -- -DUSE_DOUBLE
  scenario badinput-ifdef-double-buffers 0 'float64 x 1000003' -- cat "$W/vid/correctness.md"
  scenario badinput-ifdef-double-read 0 'Signature read .*-DUSE_DOUBLE' -- cat "$W/vid/correctness.md"
  scenario badinput-ifdef-record 0 'recorded with .*vi_d.so' -- "$K" check $VI --ref $VREF --N=1000 --so "$W/vi_d.so" -o "$W/vid2"
  scenario badinput-ifdef-profile 0 'Memory-Bound' -- "$K" profile $VI --N=67108864 --so "$W/vi_d.so" -o "$W/vidp"
  # Exit 2 before the GPU on the GPU machine too.
  scenario badinput-not-elf 2 'not an ELF file' -- "$K" check $E/cuda/vector_add/vector_add.cu --ref $VREF --N=8 --so $BI/libs/not_elf.so
  scenario badinput-py-syntax 2 'SyntaxError' -- "$K" check $BI/py/syntax_error.py --ref $VREF --N=8
  scenario badinput-no-extern-c 2 '_Z5solvePKfPfi' -- "$K" check $BI/kernels/no_extern_c.cu --ref $VREF --N=8
  # .ncu-repz with this machine's ncu (2025.3 reads no compressed report: says what is needed).
  scenario badinput-repz 2 'Nsight Compute 2026' -- "$K" analyze $BI/csv/fake.ncu-repz -o "$W/repz"
  # The 200 MB export (bench/make_big_export.py): wall time and peak memory of kprof analyze.
  python3 bench/make_big_export.py --out "$W/big.raw.csv" --size-mb 200 > "$W/big.gen.log" 2>&1
  scenario badinput-analyze-200MB 0 "max_rss_MB" -- python3 bench/peak_rss.py "$K" analyze "$W/big.raw.csv" -o "$W/big"
  scenario badinput-analyze-200MB-details 0 'Launches not shown in full' -- cat "$W/big/ncu_details.md"
fi
