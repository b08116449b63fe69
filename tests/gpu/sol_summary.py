#!/usr/bin/env python3
"""Summary of the `sol` stage: for every `kprof run` folder under DIR, each version's
class, time bound with its arithmetic, % of bound, top findings with their gains, and kprof's
timing against ncu's, as Markdown for docs/gpu-runs.md. Usage: sol_summary.py DIR"""
import glob
import json
import os
import sys


def version_lines(name, pj):
    ncu = pj.get("ncu") or {}
    call = ncu.get("call") or {}
    out = []
    b = call.get("bound")
    lead = None
    for k in ncu.get("kernels", []):
        if k.get("id") == call.get("leading_id"):
            lead = k
    v = (lead or {}).get("verdict") or {}
    out.append("- **{}**: {} ({})".format(name, v.get("class", "n/a"), v.get("limiter", "")))
    if b:
        for t in b.get("terms", []):
            out.append("  - {} term, {} ceiling: {}".format(t["kind"], t["ceiling"], t["arithmetic"]))
        out.append("  - " + b.get("sentence", ""))
        for n in b.get("notes", []):
            out.append("  - note: " + n)
    else:
        out.append("  - no time bound")
    for f in (v.get("findings") or [])[:3]:
        gain = f["capped_pct"] if f.get("capped_pct") is not None else f["gain_pct"]
        out.append("  - finding {}: {} {:.1f}% = {}{}".format(f["rank"], f["title"], gain, f["formula"],
                                                               " [ncu: " + f["agreement"] + "]" if f.get("agreement") else ""))
    eff = v.get("implementation_efficiency")
    if eff:
        out.append("  - implementation efficiency: {} at {:.1f}%".format(eff["unit"], eff["pct"]))
    tv = call.get("timing_vs_ncu")
    if tv:
        out.append("  - timing vs ncu: " + tv["text"])
    return out


def main():
    root = sys.argv[1]
    for comp in sorted(glob.glob(os.path.join(root, "*", "comparison.json"))):
        run = os.path.dirname(comp)
        c = json.load(open(comp))
        print("### " + os.path.basename(run) + "\n")
        print("| version | correct | time (ms) | class | % of bound | top finding |")
        print("|---|---|---|---|---|---|")
        for v in c["versions"]:
            pct = "{:.1f}% (at most {:.2f}x)".format(v["pct_of_bound"], v["max_speedup"]) if v.get("pct_of_bound") else "n/a"
            t = "{:.4f}".format(v["time_ms"]) if v.get("time_ms") else "n/a"
            top = v.get("top_finding")
            top = "{} ({:.1f}%)".format(top["title"], top["gain_pct"]) if top else "none"
            cls = v["class"] or (v.get("profile_reason") or v["profile_status"])
            print("| {} | {} | {} | {} | {} | {} |".format(v["name"], v["status"], t, cls, pct, top))
        print()
        for v in c["versions"]:
            pj = os.path.join(run, v["name"], "profile.json")
            if os.path.exists(pj):
                print("\n".join(version_lines(v["name"], json.load(open(pj)))))
        print("\nroofline: {}\n".format(c.get("roofline")))


if __name__ == "__main__":
    main()
