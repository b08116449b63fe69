#!/usr/bin/env bash
# End-to-end test of `kprof run --slurm` on a real single-node Slurm cluster started here (CTest:
# SlurmEndToEnd). It writes slurm.conf / gres.conf into a temporary folder, creates a munge key,
# starts munged, slurmctld and slurmd (as root, in the background), with a fake GPU GRES backed by
# device nodes made with mknod (character major 195, as /dev/nvidiaN), and stops them at the end.
# On a machine without a GPU every unit ends "not_run: environment not ready": what is tested is
# the orchestration: submission, sharding over array tasks, a unit that crashes its worker, a task
# stopped at its --time limit, resume (only units without a final result run again), the merge,
# --no-wait, and `kprof compare` on the output folder.
#   usage: slurm_e2e.sh KPROF_BINARY EXAMPLES_DIR
# Exit 0 passed, 1 failed, 77 skipped (with the reason), which CTest reports as skipped.
set -uo pipefail
KPROF=$1
EX=$2/softmax_versions
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; [ -n "${T:-}" ] && tail -n 30 "$T"/*.log 2>/dev/null; exit 1; }

[ "$(id -u)" = 0 ] || skip "not root: slurmd and munged must run as root here"
for b in munged slurmctld slurmd sbatch squeue scancel python3; do
  command -v "$b" >/dev/null 2>&1 || skip "$b not installed (Debian: apt-get install slurm-wlm munge)"
done
T=$(mktemp -d /tmp/kprof-slurm.XXXXXX)
mkdir -p "$T/dev" "$T/state" "$T/spool"
chmod 755 "$T"  # munged: its socket must be reachable
mknod "$T/dev/nvidia0" c 195 0 2>/dev/null && mknod "$T/dev/nvidia1" c 195 1 2>/dev/null ||
  skip "cannot make device nodes with mknod (no CAP_MKNOD in this container)"
HOST=$(hostname -s)
PORT=$((20000 + ($$ % 20000)))
cat > "$T/slurm.conf" <<CONF
ClusterName=kproftest
SlurmctldHost=$HOST
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
AuthType=auth/munge
AuthInfo=socket=$T/munge.socket
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
KillWait=2
MinJobAge=600
InactiveLimit=0
NodeName=$HOST CPUs=$(nproc) Gres=gpu:2 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
cat > "$T/gres.conf" <<CONF
NodeName=$HOST Name=gpu File=$T/dev/nvidia[0-1]
CONF
export SLURM_CONF=$T/slurm.conf
dd if=/dev/urandom of="$T/munge.key" bs=1 count=1024 2>/dev/null
chmod 400 "$T/munge.key"
cleanup() {
  scancel --quiet -u root 2>/dev/null
  for f in slurmd slurmctld munged; do [ -f "$T/$f.pid" ] && kill "$(cat "$T/$f.pid")" 2>/dev/null; done
  sleep 1
  rm -rf "$T"
}
trap cleanup EXIT
munged --force --key-file="$T/munge.key" --socket="$T/munge.socket" --pid-file="$T/munged.pid" \
  --log-file="$T/munged.log" --seed-file="$T/munge.seed" || skip "munged does not start: $(tail -n 3 "$T/munged.log" 2>/dev/null)"
slurmctld -c -f "$T/slurm.conf" || skip "slurmctld does not start: $(tail -n 5 "$T/slurmctld.log")"
slurmd -f "$T/slurm.conf" || skip "slurmd does not start: $(tail -n 5 "$T/slurmd.log")"
for i in $(seq 60); do
  state=$(sinfo -h -n "$HOST" -o %T 2>/dev/null)
  [ "$state" = idle ] && break
  sleep 1
done
[ "$state" = idle ] || skip "the Slurm node did not become idle (state '$state'): $(tail -n 5 "$T/slurmd.log")"
echo "slurm up: node $HOST idle, port $PORT, config $T/slurm.conf"

export KPROF_SLURM_POLL_S=1
ARGS=("$EX/v0.cu" "$EX/v1.cu" --ref "$EX/ref.py" --build --arch sm_90 --size input=N*D --size output=N*D --D=64)
unit_status() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['status'])" "$1"; }

# 1. Submission, sharding (4 units, 2 per task: 2 array tasks), a unit that crashes its worker, the merge.
OUT=$T/out
KPROF_FAULT_INJECT="v1/D=64_N=2048=crash" "$KPROF" run "${ARGS[@]}" --sweep N=1024,2048 --slurm --max-parallel 2 -o "$OUT" \
  > "$T/run1.out" 2> "$T/run1.err"
rc=$?
[ $rc = 1 ] || fail "run 1 exit $rc (want 1: no unit ok without a GPU): $(tail -n 20 "$T/run1.err")"
grep -q "#SBATCH --array=0-1%2" "$OUT/slurm/kprof.sbatch" || fail "sbatch script: $(cat "$OUT/slurm/kprof.sbatch")"
[ -f "$OUT/slurm/task-0.log" ] && [ -f "$OUT/slurm/task-1.log" ] || fail "no log per array task: $(ls "$OUT/slurm")"
grep -q "slurm job .* 4 of 4 unit(s) have results" "$T/run1.err" || fail "no progress line: $(cat "$T/run1.err")"
[ "$(unit_status "$OUT/units/v1/D=64_N=2048.json")" = crash ] || fail "the injected crash is not status crash"
for u in v0/D=64_N=1024 v1/D=64_N=1024 v0/D=64_N=2048; do
  [ "$(unit_status "$OUT/units/$u.json")" = not_run ] || fail "$u: want not_run (no GPU here)"
done
grep -q "environment not ready" "$OUT/units/v0/D=64_N=1024.json" || fail "not_run without the environment's reason"
grep -q "## D=64 N=2048" "$OUT/comparison.md" || fail "comparison.md has no table for N=2048"
grep -q "### v1: class and % of bound by size" "$OUT/comparison.md" || fail "no by-size table"
grep -q "crash: the worker process died in this unit" "$OUT/comparison.md" || fail "the crash row is missing"
echo "ok 1: submission, 2 array tasks, crash isolated to its unit, merged report"

# 2. Resume: the crash is a final result (kept); the not_run units run again, one per task.
before=$(stat -c %Y "$OUT/units/v1/D=64_N=2048.json")
sleep 1
"$KPROF" run "${ARGS[@]}" --sweep N=1024,2048 --slurm --units-per-task 1 -o "$OUT" > "$T/run2.out" 2> "$T/run2.err"
grep -q "3 to run, 1 kept" "$T/run2.err" || fail "resume: $(head -n 5 "$T/run2.err")"
grep -q "#SBATCH --array=0-2%8" "$OUT/slurm/kprof.sbatch" || fail "resubmission is not 3 tasks"
[ "$(stat -c %Y "$OUT/units/v1/D=64_N=2048.json")" = "$before" ] || fail "the kept result was rewritten"
echo "ok 2: resume submits only the 3 units without a final result"

# 3. A task stopped at its time limit: its units get status timeout.
OUT3=$T/out3
KPROF_FAULT_INJECT="v0/D=64_N=1024=sleep:600" "$KPROF" run "${ARGS[@]}" --sweep N=1024 --slurm --time 1 -o "$OUT3" \
  > "$T/run3.out" 2> "$T/run3.err"
for u in v0/D=64_N=1024 v1/D=64_N=1024; do
  [ "$(unit_status "$OUT3/units/$u.json")" = timeout ] || fail "$u: want timeout: $(cat "$OUT3/units/$u.json")"
done
grep -q "stopped at --time 1" "$OUT3/comparison.md" || fail "the timeout reason is missing"
echo "ok 3: the time-limited task's units are timeout"

# 4. --no-wait returns at once; the same command again waits for that job (no second submission) and merges.
OUT4=$T/out4
KPROF_FAULT_INJECT="v0/D=64_N=1024=sleep:3" "$KPROF" run "${ARGS[@]}" --sweep N=1024 --slurm --no-wait -o "$OUT4" > "$T/run4.out" 2>&1 ||
  fail "--no-wait exit $?"
grep -q "submitted; when it has ended" "$T/run4.out" || fail "--no-wait: $(cat "$T/run4.out")"
[ -f "$OUT4/comparison.md" ] && fail "--no-wait merged before the job ended"
"$KPROF" run "${ARGS[@]}" --sweep N=1024 --slurm -o "$OUT4" > "$T/run5.out" 2> "$T/run5.err"
grep -q "still queued: waiting for it instead of submitting" "$T/run5.err" || fail "second call: $(cat "$T/run5.err")"
[ -f "$OUT4/comparison.md" ] || fail "no merge after waiting"
echo "ok 4: --no-wait, then the same command waits for the job and merges"

# 5. kprof compare reads the output folders (units paired by version and size).
"$KPROF" compare "$OUT" "$OUT" -o "$T/cmp" > "$T/cmp.out" 2>&1 || fail "compare: $(cat "$T/cmp.out")"
grep -q "v1/D=64_N=2048" "$T/cmp/comparison.md" || fail "compare did not pair the units: $(cat "$T/cmp/comparison.md")"
echo "ok 5: kprof compare on the output folder"
echo "PASS"
