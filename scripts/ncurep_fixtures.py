#!/usr/bin/env python3
"""Derives CPU test fixtures from the real H200 reports in tests/data/ncurep/.

For each REPORT.ncu-rep it writes, next to it:
  REPORT.raw.csv     every metric of the report's first kernel in the layout of
                     `ncu --import REPORT --csv --page raw --print-units base` (row 1 names, row 2
                     units, row 3 values), which kprof's parser reads (src/stages/ncu/metric_table.hpp);
  REPORT.rules.json  Nsight Compute's own guided-analysis rule results for that kernel
                     (ncu_report's IAction.rule_results_as_dicts(), trimmed to what kprof shows).

The values are the report's own: nothing is computed here. It needs Nsight Compute's Python
module from PyPI (no GPU, no ncu):
    pip install --target /tmp/ncu_report ncu-report==2026.3.1
    python3 scripts/ncurep_fixtures.py --ncu-report /tmp/ncu_report [REPORT.ncu-rep ...]
"""
import argparse
import csv
import glob
import json
import math
import os
import sys

IDENTITY = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
            "Block Size", "Grid Size", "Device", "CC"]
# ncu_report's rule speedup types (SpeedupType_LOCAL = 1, SpeedupType_GLOBAL = 2).
SPEEDUP_TYPES = {1: "local", 2: "global"}


def metric_cell(m):
    """(value text, unit) of one metric as the raw page prints it with --print-units base."""
    try:
        if m.kind() == m.ValueKind_STRING:  # as_double() of a text metric is 0.0 ("NVIDIA H200" -> "0.0")
            raise TypeError
        v = m.as_double()
        text = "n/a" if math.isnan(v) else repr(v)
    except Exception:
        text = m.as_string()
    try:
        unit = m.unit()
    except Exception:
        unit = ""
    return text, unit or ""


def identity_cells(a):
    def num(name):
        m = a.metric_by_name(name)
        return int(m.as_double()) if m is not None else 0

    def dim(kind):
        return "({}, {}, {})".format(*(num("launch__{}_dim_{}".format(kind, x)) for x in "xyz"))
    cc = a.metric_by_name("device__attribute_compute_capability_major")
    cc_minor = a.metric_by_name("device__attribute_compute_capability_minor")
    ccs = "{}.{}".format(int(cc.as_double()), int(cc_minor.as_double())) if cc and cc_minor else ""
    return ["0", "", "", "", a.name(), "", "", dim("block"), dim("grid"), "0", ccs]


def rules(a):
    out = []
    for r in a.rule_results_as_dicts():
        msg = r.get("rule_message") or {}
        if not msg.get("message"):
            continue  # an empty placeholder result
        item = {"rule": r["rule_identifier"], "name": r.get("name", ""),
                "section": r.get("section_identifier", ""), "title": msg.get("title", ""),
                "message": msg["message"], "type": msg.get("type", 0)}
        se = r.get("speedup_estimation")
        if se:
            item["speedup_pct"] = se["speedup"]
            item["speedup_type"] = SPEEDUP_TYPES.get(se["type"], "unknown")
        out.append(item)
    return out


def convert(ncu_report, path):
    a = ncu_report.load_report(path).range_by_idx(0).action_by_idx(0)
    names = sorted(n for n in a.metric_names() if not n.startswith("breakdown:"))
    values, units = [], []
    for n in names:
        v, u = metric_cell(a.metric_by_name(n))
        values.append(v)
        units.append(u)
    stem = path[: -len(".ncu-rep")]
    with open(stem + ".raw.csv", "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n")
        w.writerow(IDENTITY + names)
        w.writerow([""] * len(IDENTITY) + units)
        w.writerow(identity_cells(a) + values)
    with open(stem + ".rules.json", "w") as f:
        json.dump({"source": os.path.basename(path), "kernel": a.name(), "rules": rules(a)}, f, indent=1)
        f.write("\n")
    print("wrote", stem + ".raw.csv", "and", stem + ".rules.json", "({} metrics)".format(len(names)))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ncu-report", help="folder holding the ncu_report package (pip --target)")
    p.add_argument("reports", nargs="*")
    args = p.parse_args()
    if args.ncu_report:
        sys.path.insert(0, args.ncu_report)
    import ncu_report
    here = os.path.dirname(os.path.abspath(__file__))
    reports = args.reports or sorted(glob.glob(os.path.join(here, "..", "tests", "data", "ncurep", "*.ncu-rep")))
    for r in reports:
        convert(ncu_report, r)


if __name__ == "__main__":
    main()
