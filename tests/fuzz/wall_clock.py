#!/usr/bin/env python3
"""The wall-clock limit of Python API and MCP calls (issue 50), on the CPU with a fake slow child.

kprof's package is imported from the checkout (python/; its option table from _option_table.json,
no extension module), the C++ argument check is stood in for, and the child `python -m kprof` is a
stand-in package on PYTHONPATH that records its argv, starts a grandchild in its process group and
sleeps. Checked: the call raises TimeoutError past its limit with a clear message, the child and
its grandchild are stopped, the child was told no limit of its own (one clock), no report is
returned; MCP answers {"error": {"code": "timeout", "message", "hint"}}; the default is the option
table's; 0 is no limit; a bad value is a UsageError before anything runs.

  python3 tests/fuzz/wall_clock.py          # exit 0 when every check holds
"""
import json
import os
import shutil
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

import kprof  # noqa: E402
from kprof import _api, _options, mcp_server  # noqa: E402

SLOW_CHILD = '''
import os, subprocess, sys, time
here = os.path.dirname(os.path.abspath(__file__))
grandchild = subprocess.Popen(["sleep", "120"])
with open(os.path.join(os.environ["FAKE_KPROF_LOG"]), "w") as f:
    f.write(repr({"argv": sys.argv[1:], "pid": os.getpid(), "grandchild": grandchild.pid}))
time.sleep(120)
'''


def ended(pid):
    """True when process ``pid`` is gone or a zombie (nobody reaps in a container)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return True
    return text[text.rfind(")") + 2] == "Z"


def wait_ended(pid, seconds=5.0):
    t0 = time.time()
    while time.time() - t0 < seconds and not ended(pid):
        time.sleep(0.05)
    return ended(pid)


def main():
    failures = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    tmp = tempfile.mkdtemp(prefix="kprof-wall-")
    fake = os.path.join(tmp, "fake", "kprof")
    os.makedirs(fake)
    open(os.path.join(fake, "__init__.py"), "w").close()
    with open(os.path.join(fake, "__main__.py"), "w") as f:
        f.write(SLOW_CHILD)
    log = os.path.join(tmp, "child.txt")
    os.environ["PYTHONPATH"] = os.path.join(tmp, "fake")
    os.environ["FAKE_KPROF_LOG"] = log
    _api._validate = lambda argv: os.path.join(tmp, "o")  # the C++ argument check (kprof._core) stood in for
    report = os.path.join(tmp, "r.raw.csv")
    open(report, "w").close()

    # The default is the option table's row (--wall-timeout-s); 0 is none; a bad value is refused.
    default = _options.row("analyze", "wall_timeout_s")["default"]
    check(_api.wall_limit("analyze", None) == default == 3600, f"default limit is the table's ({default} s)")
    check(_api.wall_limit("run", 0) is None, "wall_timeout_s=0: no limit")
    for bad in (-1, "10", True, float("nan")):
        try:
            _api.wall_limit("analyze", bad)
            check(False, f"wall_timeout_s={bad!r} refused")
        except kprof.UsageError as e:
            check("wall_timeout_s" in e.message, f"wall_timeout_s={bad!r} refused: {e.message}")

    # A call past its limit: TimeoutError, the child and its grandchild stopped, the child told none.
    t0 = time.time()
    try:
        kprof.analyze(report, output_dir=os.path.join(tmp, "o"), wall_timeout_s=2)
        check(False, "analyze past its limit raises TimeoutError")
    except TimeoutError as e:
        took = time.time() - t0
        check(2 <= took < 20, f"TimeoutError after {took:.1f} s (limit 2 s; SIGINT grace up to 10 s)")
        check("wall-clock limit of 2 s" in str(e) and "was stopped" in str(e), f"message: {e}")
    child = eval(open(log).read())  # noqa: S307 - the stand-in's own repr
    check(child["argv"][:2] == ["analyze", "--wall-timeout-s=0"], f"the child is told no limit: {child['argv'][:3]}")
    check(wait_ended(child["pid"]), f"the child {child['pid']} was stopped")
    check(wait_ended(child["grandchild"]), f"its grandchild {child['grandchild']} was stopped")
    check(not os.path.exists(os.path.join(tmp, "o", "analysis.json")), "no report written")

    # MCP: the same failure in kprof's documented error shape.
    t0 = time.time()
    answer = mcp_server._answer(lambda: kprof.analyze(report, output_dir=os.path.join(tmp, "o2"), wall_timeout_s=1),
                                lambda r: "")
    err = answer.get("error", {})
    check(set(err) == {"code", "message", "hint"} and err["code"] == "timeout", f"MCP answer: {json.dumps(answer)}")
    check("wall_timeout_s" in err.get("hint", ""), "the MCP hint names wall_timeout_s")
    child = eval(open(log).read())  # noqa: S307
    check(wait_ended(child["pid"]) and wait_ended(child["grandchild"]), "the MCP call's child and grandchild stopped")
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
