#!/usr/bin/env python3
"""Checks for the GPU suite's `onesession` stage: `kprof run --ncu-session one` against
`--ncu-session per-version` on the same versions.

  onesession_check.py same ONE_DIR PER_DIR
      every version classified in both runs, with the same class; prints both classes and the
      SM / memory SOL of each (ncu's numbers of one call: they may differ by run-to-run noise).
  onesession_check.py one ONE_DIR N [--torch-imports K]
      ONE_DIR holds run.ncu-rep and ncu_session.log; ncu connected to exactly one process; every
      version's profile.json says it came from that one session of N versions (its NVTX range) and
      has no profile.ncu-rep of its own; with --torch-imports, the session's log (run with
      PYTHONPROFILEIMPORTTIME=1) shows exactly K top-level imports of torch.
  onesession_check.py per PER_DIR
      every version has its own profile.ncu-rep and no session.
  onesession_check.py crash ONE_DIR CRASHER
      CRASHER is not classified and every other version is; the versions before it in the plan
      came from the session, the ones after it from sessions of their own.
  onesession_check.py defer ONE_DIR GOOD[,GOOD...] [WRONG]
      every GOOD version passed, is classified and came from the one session of all GOOD versions;
      WRONG (timed before its check, then failed it) has no time, no class and is not in the
      session's plan (ncu_session.json).
  onesession_check.py fault ONE_DIR BEFORE FAULTY AFTER
      FAULTY (faulted while timed before its check) is a check_error row; BEFORE (timed before it)
      is "timed but not checked"; AFTER did not run; nothing is timed or classified.
Prints what it found; exit 0 when the check holds, 1 when not, 2 on bad arguments.
"""
import json
import os
import re
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def versions(run_dir):
    return load(os.path.join(run_dir, "comparison.json"))["versions"]


def ncu_run(run_dir, name):
    return load(os.path.join(run_dir, name, "profile.json")).get("ncu_run", {})


def check_same(one, per):
    ok = True
    a, b = {v["name"]: v for v in versions(one)}, {v["name"]: v for v in versions(per)}
    for name in a:
        x, y = a[name], b.get(name, {})
        same = x.get("class") is not None and x.get("class") == y.get("class")
        ok = ok and same
        print(f"{name}: one={x.get('class')} per-version={y.get('class')} "
              f"SM SOL {x.get('sm_sol_pct')} / {y.get('sm_sol_pct')}, memory SOL {x.get('memory_sol_pct')} / "
              f"{y.get('memory_sol_pct')} -> {'same class' if same else 'DIFFERENT'}")
    return ok and set(a) == set(b)


def check_one(one, n, torch_imports):
    log = open(os.path.join(one, "ncu_session.log"), errors="replace").read()
    procs = len(re.findall(r"==PROF== Connected to process", log))
    ok = os.path.exists(os.path.join(one, "run.ncu-rep")) and procs == 1
    print(f"run.ncu-rep: {os.path.exists(os.path.join(one, 'run.ncu-rep'))}; ncu connected to {procs} process(es)")
    for v in versions(one):
        r = ncu_run(one, v["name"])
        own = os.path.exists(os.path.join(one, v["name"], "profile.ncu-rep"))
        good = r.get("session_versions") == n and r.get("nvtx_range") == "kprof:" + v["name"] and not own
        ok = ok and good
        print(f"{v['name']}: session_versions={r.get('session_versions')} range={r.get('nvtx_range')} "
              f"own report={own} replay passes={r.get('replay_passes')} -> {'ok' if good else 'NOT from the session'}")
    if torch_imports is not None:
        k = len(re.findall(r"import time:.*\|\s*torch\s*$", log, re.M))
        print(f"top-level torch imports in the session's process: {k} (want {torch_imports})")
        ok = ok and k == torch_imports
    return ok


def check_per(per):
    ok = True
    for v in versions(per):
        r = ncu_run(per, v["name"])
        own = os.path.exists(os.path.join(per, v["name"], "profile.ncu-rep"))
        ok = ok and own and not r.get("session_versions")
        print(f"{v['name']}: own report={own} session_versions={r.get('session_versions')}")
    return ok and not os.path.exists(os.path.join(per, "run.ncu-rep"))


def check_crash(one, crasher):
    plan = [v["name"] for v in load(os.path.join(one, "ncu_session.json"))["versions"]]
    ok = crasher in plan
    after = False
    for v in versions(one):
        name, r = v["name"], ncu_run(one, v["name"])
        if name == crasher:
            after = True
            good = v.get("class") is None
            print(f"{name}: class={v.get('class')} reason={v.get('profile_reason')} -> "
                  f"{'costs only its row' if good else 'CLASSIFIED?'}")
        else:
            in_session = bool(r.get("session_versions"))
            good = v.get("class") is not None and in_session == (not after)
            print(f"{name}: class={v.get('class')} from {'the session' if in_session else 'its own session'} -> "
                  f"{'ok' if good else 'UNEXPECTED'}")
        ok = ok and good
    return ok


def check_defer(one, good, wrong):
    rows = {v["name"]: v for v in versions(one)}
    plan = [v["name"] for v in load(os.path.join(one, "ncu_session.json"))["versions"]]
    ok = True
    for name in good:
        v, r = rows.get(name, {}), ncu_run(one, name)
        fine = (v.get("status") == "pass" and v.get("class") is not None and v.get("time_ms") is not None
                and r.get("session_versions") == len(good))
        print(f"{name}: status={v.get('status')} class={v.get('class')} time_ms={v.get('time_ms')} "
              f"session_versions={r.get('session_versions')} -> {'ok' if fine else 'UNEXPECTED'}")
        ok = ok and fine
    if wrong:
        v = rows.get(wrong, {})
        fine = (v.get("status") == "fail" and v.get("time_ms") is None and v.get("class") is None
                and wrong not in plan)
        print(f"{wrong}: status={v.get('status')} time_ms={v.get('time_ms')} class={v.get('class')} in plan="
              f"{wrong in plan} -> {'loses its timing' if fine else 'UNEXPECTED'}")
        ok = ok and fine
    return ok


def check_fault(one, before, faulty, after):
    rows = {v["name"]: v for v in versions(one)}
    b, f, a = rows.get(before, {}), rows.get(faulty, {}), rows.get(after, {})
    checks = [
        (f.get("status") == "check_error" and "before its check" in (f.get("status_reason") or ""), faulty, f),
        (b.get("status") == "not_run" and "timed but not checked" in (b.get("status_reason") or ""), before, b),
        (a.get("status") == "not_run", after, a),
    ]
    ok = True
    for good, name, v in checks:
        print(f"{name}: status={v.get('status')} reason={v.get('status_reason')} time_ms={v.get('time_ms')} "
              f"-> {'ok' if good and v.get('time_ms') is None else 'UNEXPECTED'}")
        ok = ok and good and v.get("time_ms") is None and v.get("class") is None
    return ok


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    mode = argv[1]
    if mode == "same" and len(argv) == 4:
        return 0 if check_same(argv[2], argv[3]) else 1
    if mode == "one" and len(argv) in (4, 6):
        k = int(argv[5]) if len(argv) == 6 and argv[4] == "--torch-imports" else None
        return 0 if check_one(argv[2], int(argv[3]), k) else 1
    if mode == "per" and len(argv) == 3:
        return 0 if check_per(argv[2]) else 1
    if mode == "crash" and len(argv) == 4:
        return 0 if check_crash(argv[2], argv[3]) else 1
    if mode == "defer" and len(argv) in (4, 5):
        return 0 if check_defer(argv[2], argv[3].split(","), argv[4] if len(argv) == 5 else "") else 1
    if mode == "fault" and len(argv) == 6:
        return 0 if check_fault(argv[2], argv[3], argv[4], argv[5]) else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
