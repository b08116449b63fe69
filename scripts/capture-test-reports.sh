#!/usr/bin/env bash
# Records the real Nsight Compute reports that kprof's CPU tests read (tests/data/ncurep/), on a GPU
# machine (the H200 of docs/gpu-runs.md). Each planted kernel of tests/data/planted/planted.cu is
# profiled alone with `--set full --import-source yes` (per-instruction stall samples, source lines,
# ncu's rule results), clocks untouched (--clock-control none). Usage (repo root):
#   scripts/capture-test-reports.sh OUTDIR
set -euo pipefail
out=${1:?usage: $0 OUTDIR}
mkdir -p "$out"
root=$(cd "$(dirname "$0")/.." && pwd)
src="$root/tests/data/planted/planted.cu"
bin=$(mktemp -d)/planted
nvcc -O3 -lineinfo -arch=sm_90 "$src" -o "$bin"
for k in uncoalesced:uncoalesced_gather bank:bank_conflict local:local_spill divergent:divergent; do
  arg=${k%%:*}; name=${k#*:}
  ncu --clock-control none --set full --import-source yes -k "regex:^${name}$" -c 1 -f \
      -o "$out/$name" "$bin" "$arg" > "$out/$name.log" 2>&1 || { echo "ncu failed on $name"; tail "$out/$name.log"; }
done
# Issue 42's kernels (planted.cu too): the ADU pipe behind SM SOL (barriers), LDGSTS loads, the
# launch floor (an empty kernel), a one-block kernel and a dependent FMA chain. Each report then goes
# through scripts/ncurep_fixtures.py into REPORT.raw.csv and REPORT.rules.json.
for k in barrier:barrier_exchange ldgsts:ldgsts_copy empty:empty_kernel one_block:one_block fma_chain:fma_chain; do
  arg=${k%%:*}; name=${k#*:}
  ncu --clock-control none --set full --import-source yes -k "regex:^${name}$" -c 1 -f \
      -o "$out/$name" "$bin" "$arg" > "$out/$name.log" 2>&1 || { echo "ncu failed on $name"; tail "$out/$name.log"; }
done
ls -la "$out"
