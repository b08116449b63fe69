#!/usr/bin/env python3
"""The targets of scaled `kprof run` (--sweep, --gpus), on the GPU machine.

  (1) a sweep of 4 versions x 8 sizes on one GPU against one `kprof run` of the 4 versions at one size
      (target: the sweep takes <= 3x the one run);
  (2) with two or more GPUs: 8 units (4 versions x 2 sizes) with `--gpus 0,1` against `--gpus 0`
      (target: <= 60% of the one-GPU wall time), once with the GPUs sharing TMPDIR (ncu queues their
      profiles through its lock there) and once with KPROF_TMPDIR_PER_GPU=1 (one TMPDIR per GPU:
      whether the driver lets two GPUs profile at once, or one fails with "a driver resource was
      unavailable", is what this measures).

The versions: the three softmax versions of examples/softmax_versions and examples/cuda/softmax (same
solve signature), D=1024, built once before anything is timed (every timed command finds its .so).
Writes OUTDIR/scale.md and OUTDIR/scale.json and prints the ratios.

Usage: python3 bench/bench_scale.py --kprof build/kprof --out OUTDIR [--one-n N] [--sweep SPEC]
Exit: 0 when every kprof command exited 0, 1 when one did not (the tables are still written).
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
S = os.path.join(ROOT, "examples", "softmax_versions")
VERSIONS = [os.path.join(S, v) for v in ("v0.cu", "v1.cu", "v2.cu")] + [os.path.join(ROOT, "examples", "cuda", "softmax", "softmax.cu")]
DIMS = ["--ref", os.path.join(S, "ref.py"), "--D=1024", "--size", "input=N*D", "--size", "output=N*D"]


def timed(label, argv, log_dir, env=None):
    """Runs argv; returns (seconds, exit code). Its output goes to log_dir/label.log."""
    t0 = time.monotonic()
    with open(os.path.join(log_dir, label + ".log"), "w") as log:
        rc = subprocess.call(argv, stdout=log, stderr=subprocess.STDOUT, env=env)
    s = time.monotonic() - t0
    print(f"{label}: {s:.1f} s (exit {rc})", flush=True)
    return s, rc


def gpu_count():
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, check=True).stdout
        return sum(1 for line in out.splitlines() if line.startswith("GPU "))
    except (OSError, subprocess.CalledProcessError):
        return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kprof", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--one-n", default="65536", help="N of the single run")
    ap.add_argument("--sweep", default="N=1Ki..128Ki", help="the sweep (8 sizes by default)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    k = os.path.abspath(a.kprof)
    codes = []
    for v in VERSIONS:  # build once: no timed command compiles
        codes.append(subprocess.call([k, "build", v], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT))
    res = {"date": datetime.date.today().isoformat(), "versions": [os.path.relpath(v, ROOT) for v in VERSIONS]}
    one, rc = timed("one_run", [k, "run", *VERSIONS, *DIMS, f"--N={a.one_n}", "-o", os.path.join(a.out, "one")], a.out)
    codes.append(rc)
    sweep, rc = timed("sweep", [k, "run", *VERSIONS, *DIMS, "--sweep", a.sweep, "-o", os.path.join(a.out, "sweep")], a.out)
    codes.append(rc)
    res.update(one_run_s=one, sweep_s=sweep, sweep_spec=a.sweep, sweep_over_one=sweep / one)
    lines = [f"# kprof at scale ({res['date']})", "",
             f"- one `kprof run` of 4 versions at N={a.one_n}: {one:.1f} s",
             f"- sweep of 4 versions x {a.sweep}: {sweep:.1f} s",
             f"- sweep / one run: {sweep / one:.2f}x (target <= 3x)"]
    n = gpu_count()
    res["gpus"] = n
    if n >= 2:
        eight = [k, "run", *VERSIONS, *DIMS, "--sweep", "N=32768,65536"]
        g1, rc1 = timed("gpus_1", eight + ["--gpus", "0", "-o", os.path.join(a.out, "g1")], a.out)
        g2, rc2 = timed("gpus_2", eight + ["--gpus", "0,1", "-o", os.path.join(a.out, "g2")], a.out)
        env = dict(os.environ, KPROF_TMPDIR_PER_GPU="1")
        g2t, rc3 = timed("gpus_2_tmpdir", eight + ["--gpus", "0,1", "-o", os.path.join(a.out, "g2t")], a.out, env)
        codes += [rc1, rc2, rc3]
        busy = "driver resource" in open(os.path.join(a.out, "gpus_2_tmpdir.log")).read()
        res.update(gpus_1_s=g1, gpus_2_s=g2, gpus_2_tmpdir_s=g2t, gpus_2_over_1=g2 / g1, gpus_2_tmpdir_over_1=g2t / g1,
                   tmpdir_per_gpu_driver_resource_error=busy)
        lines += [f"- 8 units on 1 GPU: {g1:.1f} s; on 2 GPUs (shared TMPDIR): {g2:.1f} s = {100 * g2 / g1:.0f}% "
                  f"(target <= 60%); one TMPDIR per GPU: {g2t:.1f} s = {100 * g2t / g1:.0f}%"
                  + (" (ncu failed: a driver resource was unavailable)" if busy else "")]
    else:
        lines += [f"- 2-GPU target not measured: {n} GPU(s) on this machine"]
    text = "\n".join(lines) + "\n"
    print(text)
    with open(os.path.join(a.out, "scale.md"), "w") as f:
        f.write(text)
    with open(os.path.join(a.out, "scale.json"), "w") as f:
        json.dump(res, f, indent=2)
    return 0 if all(c in (0,) for c in codes) else 1


if __name__ == "__main__":
    sys.exit(main())
