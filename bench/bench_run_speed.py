#!/usr/bin/env python3
"""How long kprof takes beyond the GPU work: one workload run two ways, on the GPU machine.

  (a) `kprof run V1 V2 ... --ref R DIMS [--build]`: everything in one process;
  (b) the original workflow, one process per step: `kprof env`, then per version `kprof build`
      (a .cu), `kprof check V --ref R DIMS` and `kprof profile V DIMS`.

Prints (and writes to OUTDIR/runspeed.md and OUTDIR/runspeed.json) the wall time of each path and
their ratio, and per version: the seconds of each step, ncu's own wall time and replay passes
(profile.json's "ncu_run": wall_s, replay_passes), the timed calls (profile.json's "timing":
warm-up wall time plus the timed calls, see timed_calls_s) and what is left: the time kprof
spends beyond ncu's run and the timed calls. For `kprof run` a version's seconds are read from its
progress lines ("[kprof] [v1] check: PASS (2.3 s)", "[kprof] [v1] profile: ... (4.1 s)"); the
whole run's excess over ncu and the timed calls, per version, is given beside it. `kprof run` is
measured in its default mode (--ncu-session one: one ncu session for all versions, whose wall time
every version's profile.json records; it counts once in the run's excess, and a version's own
seconds then hold no ncu time). A field that kprof did not write reads n/a.

Each path gets fresh copies of the version files (and the .h/.cuh/.hpp beside them) under
OUTDIR/<path>/src, so both build every .cu, and (unless --keep-cache) its own empty
KPROF_CACHE_DIR and TRITON_CACHE_DIR: both start cold, with the same one-time costs.

Usage: python3 bench/bench_run_speed.py --kprof build/kprof --out OUTDIR --ref REF [--label NAME]
           [--paths run,steps] [--keep-cache] [--target-run-s S] [--target-beyond-s S]
           VERSION... -- KPROF_ARGS...
KPROF_ARGS (dimensions, --size, --seed, ...) go to every check, profile and run.
Exit: 0 when every kprof command exited 0, 1 when one did not (the tables are still written), 2 on
bad arguments.
"""
import argparse
import datetime
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

PROGRESS = re.compile(r"^\[kprof\] \[(?P<name>[^\]]+)\] (?P<step>[^:]+): .*\((?P<s>[0-9.]+) s\)\s*$")


def fmt(v, digits=1):
    """A number with `digits` decimals, or n/a for None."""
    return "n/a" if v is None else f"{v:.{digits}f}"


def md_table(head, rows):
    """A Markdown table from a header list and rows of cells (already strings)."""
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def run_timed(argv, log_path, env=None, timeout=1800):
    """Runs argv, stdout and stderr to log_path; returns (wall seconds, exit code, combined output)."""
    t0 = time.monotonic()
    try:
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                           timeout=timeout)
        out, rc = r.stdout, r.returncode
    except subprocess.TimeoutExpired as e:
        out, rc = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or ""), 124
    except OSError as e:
        out, rc = f"could not start {argv[0]}: {e}\n", 127
    wall = time.monotonic() - t0
    with open(log_path, "w") as f:
        f.write("$ " + " ".join(argv) + "\n" + out)
    return wall, rc, out


def read_json(path):
    """The parsed JSON file, or {} when it is missing or unreadable."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def dig(d, *keys):
    """d[k1][k2]... or None where a level is missing or not a dict."""
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d


def timed_calls_s(profile):
    """Seconds of kernel calls kprof's timing made, from profile.json's "timing": the warm-up wall
    time (settings.warmup_ms) plus phase 1's timed calls (call_time_ms.per_call, CUDA events) and,
    when CUPTI's phase 2 ran (kernel_time.available), the same calls again, counted at phase 1's
    call times. The L2 flushes and output restores between calls are kprof's own time, not counted.
    None when profile.json has no timing."""
    t = profile.get("timing") if isinstance(profile.get("timing"), dict) else None
    if t is None:
        return None
    per_call = dig(t, "call_time_ms", "per_call")
    if not isinstance(per_call, list):
        return None
    calls_ms = sum(x for x in per_call if isinstance(x, (int, float)))
    phases = 2 if dig(t, "kernel_time", "available") else 1
    warm = dig(t, "settings", "warmup_ms") or 0.0
    return (warm + phases * calls_ms) / 1e3


def version_record(report_dir):
    """ncu's and the timing's figures from REPORT_DIR/profile.json, and where the check's time went
    from REPORT_DIR/correctness.json ("phases_s", "host_copy_bytes"); None where missing."""
    p = read_json(os.path.join(report_dir, "profile.json"))
    run = p.get("ncu_run") if isinstance(p.get("ncu_run"), dict) else {}
    c = read_json(os.path.join(report_dir, "correctness.json"))
    phases = c.get("phases_s") if isinstance(c.get("phases_s"), dict) else {}
    return {"ncu_wall_s": run.get("wall_s"), "replay_passes": run.get("replay_passes"),
            "ncu_export_s": run.get("export_wall_s"), "ncu_command": run.get("command"),
            "ncu_shared": bool(run.get("session_versions")),
            "timed_calls_s": timed_calls_s(p), "profile_json": bool(p),
            "check_phases_s": phases, "check_host_copy_bytes": c.get("host_copy_bytes")}


def beyond(total, rec):
    """total minus ncu's wall time and the timed calls; None when any is unknown. A version profiled in
    `kprof run`'s one ncu session (profile.json's ncu_run.session_versions > 0) has the shared
    session outside its own progress lines: only the timed calls are taken off."""
    if total is None or rec.get("timed_calls_s") is None:
        return None
    if rec.get("ncu_shared"):
        return total - rec["timed_calls_s"]
    if rec.get("ncu_wall_s") is None:
        return None
    return total - rec["ncu_wall_s"] - rec["timed_calls_s"]


def copy_sources(versions, dest):
    """Copies each version file, and the headers in its folder, to dest; returns the new paths."""
    os.makedirs(dest, exist_ok=True)
    out = []
    for v in versions:
        folder = os.path.dirname(os.path.abspath(v))
        for f in os.listdir(folder):
            if f.endswith((".h", ".hpp", ".cuh", ".inl")):
                shutil.copy2(os.path.join(folder, f), dest)
        target = os.path.join(dest, os.path.basename(v))
        shutil.copy2(v, target)
        out.append(target)
    return out


def path_env(base, keep_cache):
    """The environment of one path: plain output and, unless keep_cache, fresh kprof and Triton caches."""
    env = dict(os.environ, KPROF_COLOR="never")
    if not keep_cache:
        for var, sub in (("KPROF_CACHE_DIR", "kprof_cache"), ("TRITON_CACHE_DIR", "triton_cache")):
            d = os.path.join(base, sub)
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
            env[var] = d
    return env


def names_of(paths):
    """Version folder names as kprof gives them: the base name, then -2, -3 for repeats."""
    seen, names = {}, []
    for p in paths:
        stem = os.path.splitext(os.path.basename(p))[0]
        seen[stem] = seen.get(stem, 0) + 1
        names.append(stem if seen[stem] == 1 else f"{stem}-{seen[stem]}")
    return names


def run_path(a, base):
    """Path (a): one `kprof run`. Returns its record."""
    env = path_env(base, a.keep_cache)
    srcs = copy_sources(a.versions, os.path.join(base, "src"))
    report = os.path.join(base, "report")
    argv = [a.kprof, "run", *srcs, "--ref", a.ref, "-o", report, *a.kprof_args]
    if any(s.endswith(".cu") for s in srcs):
        argv.insert(2 + len(srcs), "--build")
    wall, rc, out = run_timed(argv, os.path.join(base, "run.log"), env)
    steps = {}
    for line in out.splitlines():
        m = PROGRESS.match(line.strip())
        if m:
            steps.setdefault(m["name"], {})[m["step"].strip()] = float(m["s"])
    rows = {r.get("name"): r for r in read_json(os.path.join(report, "comparison.json")).get("versions", [])
            if isinstance(r, dict)}
    versions = []
    for name in names_of(srcs):
        rec = version_record(os.path.join(report, name))
        row = rows.get(name, {})
        # comparison.json's steps_s (build, load, check, profile) when kprof wrote them, else the
        # progress lines' figures.
        rec.update(name=name, steps=dict(row.get("steps_s") or steps.get(name, {})), build=row.get("build"))
        # The builds run on a pool alongside the environment probe and the other versions, and the
        # run's one import of torch and triton ("python import", on the first Python version; ref.py's
        # load imports torch beside it) is shared by every version: their seconds are shown, not
        # added to the version's own serial time.
        serial = {k: v for k, v in rec["steps"].items() if k not in RUN_WIDE_STEPS}
        rec["version_s"] = sum(serial.values()) if serial else None
        rec["beyond_s"] = beyond(rec["version_s"], rec)
        versions.append(rec)
    env_s = steps.get("env", {}).get("environment")
    return {"argv": argv, "wall_s": wall, "rc": rc, "env_s": env_s, "versions": versions,
            "comparison_json": os.path.exists(os.path.join(report, "comparison.json")),
            "gpu": dig(read_json(os.path.join(report, "env_check.json")), "gpu", "name")}


def steps_path(a, base):
    """Path (b): `kprof env`, then per version build (.cu), check and profile. Returns its record."""
    env = path_env(base, a.keep_cache)
    srcs = copy_sources(a.versions, os.path.join(base, "src"))
    report = os.path.join(base, "report")
    os.makedirs(report, exist_ok=True)
    t0 = time.monotonic()
    env_s, rc_env, _ = run_timed([a.kprof, "env", "-o", os.path.join(report, "env_check.md")],
                                 os.path.join(base, "env.log"), env)
    rcs, versions = [rc_env], []
    for src, name in zip(srcs, names_of(srcs)):
        d = os.path.join(report, name)
        steps = {}
        if src.endswith(".cu"):
            steps["build"], rc, _ = run_timed([a.kprof, "build", src], os.path.join(base, f"{name}.build.log"), env)
            rcs.append(rc)
        steps["check"], rc, _ = run_timed([a.kprof, "check", src, "--ref", a.ref, "-o", d, *a.kprof_args],
                                          os.path.join(base, f"{name}.check.log"), env)
        rcs.append(rc)
        steps["profile"], rc, _ = run_timed([a.kprof, "profile", src, "-o", d, *a.kprof_args],
                                            os.path.join(base, f"{name}.profile.log"), env)
        rcs.append(rc)
        rec = version_record(d)
        rec.update(name=name, steps=steps, version_s=sum(steps.values()))
        rec["beyond_s"] = beyond(rec["version_s"], rec)
        versions.append(rec)
    return {"wall_s": time.monotonic() - t0, "rc": max(rcs, key=abs), "env_s": env_s, "versions": versions}


# Steps of `kprof run` that are not a version's own serial time (see run_path).
RUN_WIDE_STEPS = ("build", "python import")


def step_order(step):
    """Sort key of step names: build, python import, load, check, profile first, any other after them by name."""
    known = ["build", "python import", "load", "check", "profile"]
    return (known.index(step), "") if step in known else (len(known), step)


def run_excess_per_version(r):
    """(wall - env - the distinct ncu runs - the timed calls) / versions, for `kprof run`; None when
    a figure is missing. ncu runs recorded identically by several versions (one shared session)
    count once."""
    vs = r["versions"]
    if not vs or any(v.get("ncu_wall_s") is None or v.get("timed_calls_s") is None for v in vs):
        return None
    ncu = sum(w for _, w in {(v.get("ncu_command"), v["ncu_wall_s"]) for v in vs})
    return (r["wall_s"] - (r["env_s"] or 0.0) - ncu - sum(v["timed_calls_s"] for v in vs)) / len(vs)


def first_call_s(v):
    """The check's first call of the kernel (correctness.json phases_s["first call"]): for a Triton
    version its JIT compile and autotuning (the counterpart of a .cu's nvcc build, which is not in
    a version's seconds either), for a built .so about 0. None when not recorded."""
    x = (v.get("check_phases_s") or {}).get("first call")
    return x if isinstance(x, (int, float)) else None


def beyond_less_first_call(v):
    """beyond_s less the kernel's first call; None when either is unknown."""
    f = first_call_s(v)
    return None if v.get("beyond_s") is None or f is None else v["beyond_s"] - f


def beyond_summary(versions, target, what="Beyond ncu and the timed calls"):
    """One line: median and largest time beyond ncu and the timed calls (or `what` names another
    figure in each version's beyond_s), against the target if any; the largest version is named."""
    known = [v["beyond_s"] for v in versions if v["beyond_s"] is not None]
    if not known:
        return f"\n{what}: n/a (profile.json lacks ncu_run or timing)\n"
    worst = max((v for v in versions if v["beyond_s"] is not None), key=lambda v: v["beyond_s"])
    line = f"\n{what}: median {statistics.median(known):.2f} s, largest {max(known):.2f} s ({worst.get('name')}) per version"
    missing = len(versions) - len(known)
    if missing:
        line += f" ({missing} version(s) n/a)"
    if target is not None:
        verdict = "missed" if max(known) > target else "not known (versions n/a)" if missing else "met"
        line += f"; target <= {target:g} s: **{verdict}**"
    return line + "\n"


def check_phases_table(versions):
    """Where each version's check went (correctness.json phases_s), with the bytes it copied to the host."""
    names = []
    for v in versions:
        for k in v.get("check_phases_s") or {}:
            if k not in names:
                names.append(k)
    if not names:
        return "\nCheck phases: n/a (correctness.json lacks phases_s)\n"
    order = ["prepare", "snapshots", "first call", "reference wait", "reference", "compare", "sentinel call"]
    names.sort(key=lambda n: (order.index(n), "") if n in order else (len(order), n))
    rows = []
    for v in versions:
        ph = v.get("check_phases_s") or {}
        mib = v.get("check_host_copy_bytes")
        rows.append([v["name"], *[fmt(ph.get(n), 2) for n in names], fmt(sum(ph.values()), 2) if ph else "n/a",
                     fmt(mib / 2**20, 1) if isinstance(mib, (int, float)) else "n/a"])
    return "\nWhere the check's time went (seconds):\n\n" + md_table(
        ["version", *names, "sum", "copied to host (MiB)"], rows)


def markdown(a, res):
    """The report: totals, then one table per path."""
    run, steps = res.get("run"), res.get("steps")
    md = [f"# kprof run speed: {a.label}\n\n",
          f"{res['date']}; GPU: {res.get('gpu') or 'n/a'}; kprof: `{a.kprof}`  \n",
          f"Versions: {', '.join(os.path.basename(v) for v in a.versions)}; ref: `{a.ref}`; "
          f"arguments: `{' '.join(a.kprof_args)}`\n\n"]
    rows = []
    if run:
        rows.append(["(a) `kprof run`" + (" --build" if "--build" in run["argv"] else ""), fmt(run["wall_s"]),
                     run["rc"], fmt(run["env_s"]), fmt(run_excess_per_version(run), 2)])
    if steps:
        rows.append(["(b) env + build/check/profile per version", fmt(steps["wall_s"]), steps["rc"],
                     fmt(steps["env_s"]), "n/a"])
    md.append(md_table(["path", "wall (s)", "exit", "environment (s)", "run's excess per version (s)"], rows))
    if run and steps and steps["wall_s"] > 0:
        md.append(f"\n**`kprof run` / separate steps: {run['wall_s'] / steps['wall_s']:.2f}** "
                  f"({fmt(run['wall_s'])} s against {fmt(steps['wall_s'])} s)\n")
    if run and a.target_run_s is not None:
        ok = run["rc"] == 0 and run["wall_s"] <= a.target_run_s
        md.append(f"\nTarget `kprof run` <= {a.target_run_s:g} s: **{'met' if ok else 'missed'}**\n")
    for key, title in (("run", "(a) `kprof run`, per version (seconds from its progress lines)"),
                       ("steps", "(b) separate steps, per version (seconds of each process)")):
        r = res.get(key)
        if not r:
            continue
        step_names = sorted({s for v in r["versions"] for s in v["steps"]}, key=step_order)
        head = ["version", *[f"{s} (s)" for s in step_names], "version (s)", "ncu wall (s)", "replay passes",
                "timed calls (s)", "beyond ncu and calls (s)", "kernel's first call (s)", "beyond, less the first call (s)"]
        rows = [[v["name"], *[fmt(v["steps"].get(s)) for s in step_names], fmt(v["version_s"]),
                 fmt(v["ncu_wall_s"]), v["replay_passes"] if v["replay_passes"] is not None else "n/a",
                 fmt(v["timed_calls_s"], 2), fmt(v["beyond_s"], 2), fmt(first_call_s(v), 2),
                 fmt(beyond_less_first_call(v), 2)] for v in r["versions"]]
        md.append(f"\n## {title}\n\n" + md_table(head, rows))
        md.append(beyond_summary(r["versions"], a.target_beyond_s))
        md.append(beyond_summary([dict(v, beyond_s=beyond_less_first_call(v)) for v in r["versions"]],
                                 a.target_beyond_s, "Beyond ncu, the timed calls and the kernel's first call"))
        md.append(check_phases_table(r["versions"]))
    md.append("\n'timed calls': warm-up wall time + the timed calls of both timing phases, counted at "
              "phase 1's CUDA-event call times (bench/bench_run_speed.py, timed_calls_s). In (a) the steps come "
              "from comparison.json's steps_s (load, check, profile; the build ran on a pool in parallel with the "
              "environment probe, the ref.py load and the other versions, and 'python import' is the run's one "
              "import of torch and triton, shared by every version: both shown, not added to 'version'), else "
              "from the progress lines; in (b) 'version' is build + check + profile, each a process of its own.\n")
    return "".join(md)


def parse_args(argv):
    """Splits VERSION... -- KPROF_ARGS... and parses the options; exits 2 on bad arguments."""
    if "--" in argv:
        i = argv.index("--")
        argv, kprof_args = argv[:i], argv[i + 1:]
    else:
        kprof_args = []
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kprof", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--ref", required=True)
    p.add_argument("--label", default="workload")
    p.add_argument("--paths", default="run,steps")
    p.add_argument("--keep-cache", action="store_true")
    p.add_argument("--target-run-s", type=float)
    p.add_argument("--target-beyond-s", type=float)
    p.add_argument("versions", nargs="+")
    a = p.parse_args(argv)
    a.kprof_args = kprof_args
    a.paths = [x for x in a.paths.split(",") if x]
    bad = [x for x in a.paths if x not in ("run", "steps")] + [v for v in a.versions + [a.ref] if not os.path.isfile(v)]
    if bad or not a.paths:
        p.error(f"not a path name or not a file: {', '.join(bad) or '(no path)'}")
    a.kprof = os.path.abspath(a.kprof) if os.sep in a.kprof else a.kprof
    return a


def main(argv):
    a = parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    res = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "label": a.label,
           "versions": a.versions, "ref": a.ref, "kprof_args": a.kprof_args}
    for key, fn in (("run", run_path), ("steps", steps_path)):
        if key in a.paths:
            base = os.path.join(a.out, key)
            shutil.rmtree(base, ignore_errors=True)
            os.makedirs(base)
            print(f"[bench] {key}: running ...", file=sys.stderr, flush=True)
            res[key] = fn(a, base)
            print(f"[bench] {key}: {res[key]['wall_s']:.1f} s, exit {res[key]['rc']}", file=sys.stderr, flush=True)
    res["gpu"] = (res.get("run") or {}).get("gpu")
    if res.get("run") and res.get("steps") and res["steps"]["wall_s"] > 0:
        res["ratio_run_to_steps"] = res["run"]["wall_s"] / res["steps"]["wall_s"]
    if res.get("run"):
        res["run_excess_per_version_s"] = run_excess_per_version(res["run"])
    md = markdown(a, res)
    with open(os.path.join(a.out, "runspeed.md"), "w") as f:
        f.write(md)
    with open(os.path.join(a.out, "runspeed.json"), "w") as f:
        json.dump(res, f, indent=2)
    print(md)
    return 0 if all(res[k]["rc"] == 0 for k in ("run", "steps") if k in res) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
