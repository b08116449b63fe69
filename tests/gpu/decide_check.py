#!/usr/bin/env python3
"""Checks a `kprof run --decide` comparison.json for the GPU scenario of issue 43 (stage decide).

  decide_check.py self DIR      the baseline against 20 copies of itself: at most one keep or revert
  decide_check.py planted DIR   base, slower (+3%), faster (-3%): slower reverted, faster kept
  decide_check.py selfdefault DIR   run's default ranking of the baseline and 20 copies: at most one
                                    faster or slower (issue 49)
  decide_check.py gate SLOWER_DIR SAME_DIR   the gate's rule: slower10 reverted, the copy not (issue 49)

Prints one line per version (decision, ratio, interval, rounds) and the rounds used, discarded and
the seconds the rounds took; exits 1 when the expectation fails.
"""
import json
import sys


def self_default(folder: str) -> int:
    with open(f"{folder}/comparison.json") as f:
        versions = json.load(f)["versions"]
    calls = {v["name"]: (v.get("comparison") or v).get("vs_first") for v in versions[1:]}
    decided = [n for n, c in calls.items() if c in ("faster", "slower")]
    for n, c in calls.items():
        print(f"{n}: {c}")
    ok = len(calls) == 20 and len(decided) <= 1
    print(("ok" if ok else "FAIL") + f": {len(decided)} of {len(calls)} copies called faster or slower {decided}")
    return 0 if ok else 1


def gate(slower_dir: str, same_dir: str) -> int:
    out = {}
    for label, folder in (("slower10", slower_dir), ("same", same_dir)):
        with open(f"{folder}/comparison.json") as f:
            d = json.load(f)["decision"]
        v = (d.get("versions") or [{}])[0]
        out[label] = v.get("decision")
        print(f"{label}: {v.get('decision')} ratio {v.get('ratio')} interval {v.get('interval')}: {v.get('reason')}")
    ok = out["slower10"] == "revert" and out["same"] != "revert"
    print(("ok" if ok else "FAIL") + f": slower10 {out['slower10']} (gate fails), same {out['same']} (gate passes)")
    return 0 if ok else 1


def main() -> int:
    mode, folder = sys.argv[1], sys.argv[2]
    if mode == "selfdefault":
        return self_default(folder)
    if mode == "gate":
        return gate(folder, sys.argv[3])
    with open(f"{folder}/comparison.json") as f:
        d = json.load(f)["decision"]
    if d.get("not_run"):
        print(f"FAIL: no decision: {d['not_run']}")
        return 1
    print(f"rounds {d['rounds']} used {d['rounds_used']} discarded {d['rounds_discarded']} "
          f"(clock {d['discarded_clock']}, throttle {d['discarded_throttle']}) in {d['seconds']:.1f} s; "
          f"A/A floor {d['aa_floor_pct']}%, A/A check {d.get('aa_check')}, threshold {d['threshold_pct']:.2f}%, "
          f"band {d['band']}, order seed {d.get('order_seed')}, zero-time calls {d.get('zero_time_calls')}")
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
