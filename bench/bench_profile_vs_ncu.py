#!/usr/bin/env python3
"""`kprof profile` of one kernel against the bare ncu command line it ran, on the GPU machine.

kprof records the exact ncu command of a profile in profile.json ("ncu_run": "command"): ncu with
kprof's metric list over `kprof __runner` (the same kernel, inputs and warm-up). Each repetition
runs `kprof profile KERNEL ARGS -o OUTDIR/profile_<i>`, then that command alone with its report
sent to OUTDIR/bare_<i> (the order alternates between repetitions). Prints the medians: kprof's
wall time, the bare ncu line's, their ratio, kprof's timed calls (bench_run_speed.timed_calls_s)
and the ratio without them, which the target bounds: (kprof profile - timed calls) <=
TARGET x the bare ncu line (default 1.3). Writes OUTDIR/profile_vs_ncu.md and .json.

Usage: python3 bench/bench_profile_vs_ncu.py --kprof build/kprof --out OUTDIR [--reps 3] [--target 1.3]
           KERNEL -- KPROF_ARGS...
A .cu is built once first (`kprof build`, not timed). Exit: 0 when every command exited 0 and the
ratio is known, 1 otherwise, 2 on bad arguments.
"""
import argparse
import json
import os
import shlex
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_run_speed import fmt, md_table, read_json, run_timed, timed_calls_s, dig  # noqa: E402


def bare_command(command, report_base):
    """The recorded ncu argv with its report (the argument after -o) sent to report_base; None when
    the command is missing or has no -o."""
    if not command:
        return None
    argv = shlex.split(command)
    if "-o" not in argv or argv.index("-o") + 1 >= len(argv):
        return None
    argv[argv.index("-o") + 1] = report_base
    return argv


def one_rep(a, i):
    """Repetition i: kprof profile and the bare ncu line, in alternating order. Returns its record."""
    prof_dir = os.path.join(a.out, f"profile_{i}")
    rec = {"rep": i}

    def kprof_profile():
        rec["profile_s"], rec["profile_rc"], _ = run_timed(
            [a.kprof, "profile", a.kernel, "-o", prof_dir, *a.kprof_args], os.path.join(a.out, f"profile_{i}.log"))
        p = read_json(os.path.join(prof_dir, "profile.json"))
        rec.update(ncu_wall_s=dig(p, "ncu_run", "wall_s"), replay_passes=dig(p, "ncu_run", "replay_passes"),
                   export_s=dig(p, "ncu_run", "export_wall_s"), timed_calls_s=timed_calls_s(p),
                   command=dig(p, "ncu_run", "command"))

    def bare():
        argv = bare_command(rec.get("command") or a.command, os.path.join(a.out, f"bare_{i}"))
        if argv is None:
            rec["bare_s"], rec["bare_rc"] = None, None
            return
        a.command = a.command or rec.get("command")
        rec["bare_s"], rec["bare_rc"], _ = run_timed(argv, os.path.join(a.out, f"bare_{i}.log"))

    if i % 2 == 0 or not a.command:  # the first repetition needs kprof's command first
        kprof_profile()
        bare()
    else:
        bare()
        kprof_profile()
    return rec


def median_of(reps, key):
    """Median of reps[*][key] over the repetitions that have it; None when none does."""
    xs = [r[key] for r in reps if r.get(key) is not None]
    return statistics.median(xs) if xs else None


def summarize(a, reps):
    """The medians and ratios, and the Markdown report."""
    s = {k: median_of(reps, k) for k in ("profile_s", "bare_s", "ncu_wall_s", "timed_calls_s", "export_s")}
    s["replay_passes"] = median_of(reps, "replay_passes")
    s["ratio"] = s["profile_s"] / s["bare_s"] if s["profile_s"] and s["bare_s"] else None
    if s["ratio"] is not None and s["timed_calls_s"] is not None:
        s["ratio_without_timed_calls"] = (s["profile_s"] - s["timed_calls_s"]) / s["bare_s"]
    else:
        s["ratio_without_timed_calls"] = None
    rows = [[r["rep"], fmt(r.get("profile_s")), fmt(r.get("bare_s")), fmt(r.get("ncu_wall_s")),
             fmt(r.get("timed_calls_s"), 2), fmt(r.get("export_s"), 2), r.get("profile_rc"), r.get("bare_rc")]
            for r in reps]
    rows.append(["median", fmt(s["profile_s"]), fmt(s["bare_s"]), fmt(s["ncu_wall_s"]), fmt(s["timed_calls_s"], 2),
                 fmt(s["export_s"], 2), "", ""])
    md = (f"# `kprof profile` against the bare ncu line: {os.path.basename(a.kernel)}\n\n"
          f"Arguments: `{' '.join(a.kprof_args)}`; replay passes: {fmt(s['replay_passes'], 0)}  \n"
          f"Bare ncu line as kprof recorded it (each repetition's report sent to bare_<rep>): `{a.command or 'n/a'}`\n\n"
          + md_table(["rep", "kprof profile (s)", "bare ncu line (s)", "ncu inside kprof (s)", "timed calls (s)",
                      "CSV export (s)", "kprof exit", "ncu exit"], rows)
          + f"\n**kprof profile / bare ncu: {fmt(s['ratio'], 2)}**; without kprof's timed calls: "
            f"**{fmt(s['ratio_without_timed_calls'], 2)}**")
    if s["ratio_without_timed_calls"] is not None:
        md += f" (target <= {a.target:g}: **{'met' if s['ratio_without_timed_calls'] <= a.target else 'missed'}**)"
    return s, md + "\n"


def main(argv):
    kprof_args = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kprof", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--target", type=float, default=1.3)
    p.add_argument("kernel")
    a = p.parse_args(argv)
    if not os.path.isfile(a.kernel) or a.reps < 1:
        p.error(f"not a file: {a.kernel}" if a.reps >= 1 else "--reps must be >= 1")
    a.kprof_args, a.command = kprof_args, None
    a.kprof = os.path.abspath(a.kprof) if os.sep in a.kprof else a.kprof
    os.makedirs(a.out, exist_ok=True)
    rcs = []
    if a.kernel.endswith(".cu"):
        _, rc, _ = run_timed([a.kprof, "build", a.kernel], os.path.join(a.out, "build.log"))
        rcs.append(rc)
    reps = [one_rep(a, i) for i in range(a.reps)]
    s, md = summarize(a, reps)
    with open(os.path.join(a.out, "profile_vs_ncu.md"), "w") as f:
        f.write(md)
    with open(os.path.join(a.out, "profile_vs_ncu.json"), "w") as f:
        json.dump({"kernel": a.kernel, "kprof_args": kprof_args, "bare_command": a.command, "reps": reps,
                   "summary": s, "target": a.target}, f, indent=2)
    print(md)
    rcs += [r.get(k) for r in reps for k in ("profile_rc", "bare_rc")]
    return 0 if s["ratio"] is not None and all(rc == 0 for rc in rcs) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
