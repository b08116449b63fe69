#!/usr/bin/env python3
"""Issue 48's Show, measured: how many files a new finding or a new language touches, and the
findings kprof lists for the committed H200 reports.

  house_counts.py [REPO_ROOT]            for each finding id and each language, the files under src/
                                         (and python/kprof/) that name it. A finding id counts where
                                         it is written as a string literal ("bank-conflicts"); a
                                         language where any of its names is written.
  house_counts.py --findings KPROF       runs `KPROF analyze --json` on every committed H200 raw CSV
                                         (tests/data/{ncu,gemmprog,ncurep}) and prints each kernel's
                                         findings: id, gain, merged ids.
"""
import os
import re
import sys

FINDINGS = ["uncoalesced-loads", "uncoalesced-stores", "bank-conflicts", "local-memory", "global-reloads",
            "shared-reloads", "vector-loads", "pipe-peak", "divergence", "stall-long_scoreboard", "stall-barrier",
            "issue-slots", "l1-hit-rate", "l2-hit-rate", "occupancy", "adu-barriers", "ilp"]
LANGUAGES = {
    "cuda-cpp": r"cuda-cpp|CudaCpp|cuda_cpp",
    "cutlass": r"\"cutlass\"|Implementation::Cutlass|\bCutlass\b",
    "triton": r"\btriton\b|\bTriton\b",
    "cute-dsl": r"cute-dsl|CuteDsl|cute_dsl|CuTe DSL|cutlass\.cute",
}


def code_only(path, text):
    """The text without comments: // to the end of a line (C++), # to the end of a line (Python)."""
    mark = "#" if path.endswith((".py", ".pyi")) else "//"
    lines = []
    for line in text.splitlines():
        if mark == "#" and line.lstrip().startswith("#"):
            continue
        lines.append(line.split("//", 1)[0] if mark == "//" and not line.lstrip().startswith("#") else line)
    return "\n".join(lines)


def files(root, subdirs, code=False):
    for sub in subdirs:
        for d, _, names in os.walk(os.path.join(root, sub)):
            for n in sorted(names):
                if n.endswith((".cpp", ".hpp", ".cu", ".h", ".py", ".pyi")):
                    p = os.path.join(d, n)
                    with open(p, encoding="utf-8", errors="replace") as f:
                        text = f.read()
                    yield p, code_only(p, text) if code else text


def count(root, pattern, subdirs, code=False):
    rx = re.compile(pattern)
    return sum(1 for _, text in files(root, subdirs, code) if rx.search(text))


def camel(fid):
    """'bank-conflicts' -> 'BankConflicts', 'stall-long_scoreboard' -> 'StallLongScoreboard'."""
    return "".join(w[:1].upper() + w[1:] for w in re.split(r"[-_]", fid))


def findings(kprof, root="."):
    import glob
    import json
    import subprocess
    import tempfile
    files = sorted(glob.glob(os.path.join(root, "tests/data/ncu/*.raw.csv")) +
                   glob.glob(os.path.join(root, "tests/data/gemmprog/*.raw.csv")) +
                   glob.glob(os.path.join(root, "tests/data/ncurep/*.raw.csv")))
    for path in files:
        with tempfile.TemporaryDirectory() as out:
            r = subprocess.run([kprof, "analyze", path, "--json", "--no-roofline", "-o", out],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print(f"{os.path.relpath(path, root)}: exit {r.returncode}: {r.stderr.strip()[-200:]}")
                continue
            j = json.loads(r.stdout)
        for k in j.get("kernels", []):
            v = k.get("verdict", k)
            name = (k.get("name") or "?").split("(")[0][:32]
            fs = v.get("findings", [])
            gain = lambda f: f["capped_pct"] if f.get("capped_pct") is not None else f["gain_pct"]
            row = "; ".join(f"{f['id']} {gain(f):.3g}%"
                            + (f" (+{','.join(f['merged'])})" if f.get("merged") else "") for f in fs)
            print(f"{os.path.relpath(path, root)} [{name}]: {len(fs)} findings: {row}")


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--findings":
        findings(sys.argv[2])
        return
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    print("files under src/ naming each finding: its id as a string literal; with its catalog enumerator")
    print(f"{'finding id':24} {'literal':>7} {'literal or FindingId::X':>24}")
    for fid in FINDINGS:
        lit = '"' + re.escape(fid) + '"'
        both = lit + r"|FindingId::" + camel(fid) + r"\b|^\s*" + camel(fid) + ","
        print(f"{fid:24} {count(root, lit, ['src'], True):>7} {count(root, '(?m)' + both, ['src'], True):>24}")
    print("\nfiles naming each language (src/, then src/ + python/kprof/; all text, then code without comments)")
    print(f"{'language':24} {'src':>4} {'src+py':>6} {'src code':>8} {'src+py code':>11}")
    for lang, pat in LANGUAGES.items():
        print(f"{lang:24} {count(root, pat, ['src']):>4} {count(root, pat, ['src', 'python/kprof']):>6} "
              f"{count(root, pat, ['src'], True):>8} {count(root, pat, ['src', 'python/kprof'], True):>11}")


if __name__ == "__main__":
    main()
