#!/usr/bin/env python3
"""Two analyses into one output folder at once, TRIALS times (issue 50, "one run, one folder"):
both must succeed, and every file left in the folder must come from one and the same run (the
later one): analysis.json, ncu_summary.md, ncu_details.md and roofline.svg all name its kernel and
none names the other's. Prints one JSON line: trials, both_ok, mixed, waited (the second run said
it waited), seconds.

  python3 tests/fuzz/same_folder.py --kprof build/kprof --trials 30
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REPORTS = {"k_copy": os.path.join(ROOT, "tests", "data", "ncu", "copy.raw.csv"),
           "k_fma": os.path.join(ROOT, "tests", "data", "ncu", "fma.raw.csv")}
FILES = ["analysis.json", "ncu_summary.md", "ncu_details.md", "roofline.svg"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kprof", default=os.path.join(ROOT, "build", "kprof"))
    ap.add_argument("--trials", type=int, default=30)
    args = ap.parse_args()
    stats = {"trials": 0, "both_ok": 0, "mixed": 0, "incomplete": 0, "waited": 0}
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="kprof-same-folder-") as tmp:
        for trial in range(args.trials):
            out = os.path.join(tmp, "out%d" % trial)
            results = {}

            def go(name):
                p = subprocess.run([args.kprof, "analyze", REPORTS[name], "-o", out, "--json"], capture_output=True)
                results[name] = p

            ts = [threading.Thread(target=go, args=(n,)) for n in REPORTS]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            stats["trials"] += 1
            if all(p.returncode == 0 for p in results.values()):
                stats["both_ok"] += 1
            else:
                for n, p in results.items():
                    sys.stderr.write("%s exit %d: %s\n" % (n, p.returncode, p.stderr.decode(errors="replace")[-400:]))
            stats["waited"] += any(b"waiting for another kprof run" in p.stderr for p in results.values())
            try:
                source = json.load(open(os.path.join(out, "analysis.json")))["source"]
            except (OSError, ValueError, KeyError):
                stats["incomplete"] += 1
                continue
            mine = next(k for k, v in REPORTS.items() if v == source)
            other = next(k for k in REPORTS if k != mine)
            for f in FILES:
                text = open(os.path.join(out, f), encoding="utf-8").read()
                if mine not in text or other in text:
                    stats["mixed"] += 1
                    sys.stderr.write("trial %d: %s is not all %s's\n" % (trial, f, mine))
                    break
    stats["seconds"] = round(time.time() - t0, 1)
    print(json.dumps(stats))
    return 0 if stats["both_ok"] == stats["trials"] and not stats["mixed"] and not stats["incomplete"] else 1


if __name__ == "__main__":
    sys.exit(main())
