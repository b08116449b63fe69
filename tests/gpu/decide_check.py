#!/usr/bin/env python3
"""Checks a `kprof run --decide` comparison.json for the GPU scenario of issue 43 (stage decide).

  decide_check.py self DIR      the baseline against 20 copies of itself: at most one keep or revert
  decide_check.py planted DIR   base, slower (+3%), faster (-3%): slower reverted, faster kept

Prints one line per version (decision, ratio, interval, rounds) and the rounds used, discarded and
the seconds the rounds took; exits 1 when the expectation fails.
"""
import json
import sys


def main() -> int:
    mode, folder = sys.argv[1], sys.argv[2]
    with open(f"{folder}/comparison.json") as f:
        d = json.load(f)["decision"]
    if d.get("not_run"):
        print(f"FAIL: no decision: {d['not_run']}")
        return 1
    print(f"rounds {d['rounds']} used {d['rounds_used']} discarded {d['rounds_discarded']} "
          f"(clock {d['discarded_clock']}, throttle {d['discarded_throttle']}) in {d['seconds']:.1f} s; "
          f"A/A floor {d['aa_floor_pct']}%, threshold {d['threshold_pct']:.2f}%, band {d['band']}")
    calls = {}
    for v in d["versions"]:
        calls[v["name"]] = v["decision"]
        print(f"{v['name']}: {v['decision']} ratio {v['ratio']} interval {v['interval']} rounds {v['rounds']} "
              f"more {v['more_rounds']}: {v['reason']}")
    if mode == "self":
        decided = [n for n, c in calls.items() if c != "inconclusive"]
        ok = len(calls) == 20 and len(decided) <= 1
        print(("ok" if ok else "FAIL") + f": {len(decided)} of {len(calls)} self-comparisons decided {decided}")
    else:
        ok = calls.get("slower") == "revert" and calls.get("faster") == "keep"
        print(("ok" if ok else "FAIL") + f": slower {calls.get('slower')}, faster {calls.get('faster')}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
