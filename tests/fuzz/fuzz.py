#!/usr/bin/env python3
"""kprof's mutation fuzzers (issue 50): damaged, foreign and impossible inputs must end in one
clear refusal (exit 2) or an honest answer, never in an internal error, a traceback, a hang, a
verdict printed from an impossible value or a gate that passes on garbage.

A plain mutation loop over a seed corpus built from tests/data (no clang/libFuzzer needed):

  python3 tests/fuzz/fuzz.py --kprof build/kprof --target csv --seconds 60
  python3 tests/fuzz/fuzz.py --kprof build/kprof --replay          # every committed regression input

Targets: csv (ncu raw exports), rules (REPORT.rules.json beside an export), ncurep (.ncu-rep through
ncu_report; skipped with the reason when no ncu_report imports), compare (comparison.json pairs,
with --fail-if-slower), mcp (raw JSON-RPC lines to `kprof mcp` over stdio; skipped with the reason
when the MCP SDK or the kprof package is not importable). Every input that fails an oracle is saved
under --save (default tests/fuzz/regressions/<target>/): commit it, and --replay keeps it fixed.

Prints one JSON summary: runs, exits by code, internal errors, tracebacks, verdicts on impossible
values, gates passed on garbage, hangs, incomplete outputs, peak memory of the children (MiB).
Exit 0 when every oracle held, 1 otherwise.
"""
import argparse
import glob
import hashlib
import json
import math
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data")
HERE = os.path.dirname(os.path.abspath(__file__))

IMPOSSIBLE = ["-50", "1e299", "2.99e+299", "5e-324", "inf", "-inf", "nan", "9.76e+07", "-0.5", "1e999",
              "-1", "123456789012345678901234567890", "0", ""]
UNITS = ["msecond", "psecond", "usecond", "nsecond", "second", "", "furlong", "%", "Kbyte", "Gbyte/second",
         "byte", "cycle", "hz", "Mhz", "inst", "warp", "1", "%%", "byte/second"]
FOREIGN = [b"\xff", b"\xc3\x28", b"\xe9", b"\x80abc", b"\xf0\x28\x8c\x28", b"\xed\xa0\x80", b"\x00"]

# A percentage printed from a value that cannot be: inf/nan, an exponent, or a negative SOL.
BAD_PCT = re.compile(r"(?i)(\binf\b|\bnan\b|\d[eE]\+?\d+)\s*%|SOL[^\n]{0,12}?-\d|-\d+(\.\d+)?\s*%\s*(of|SOL)")


def seeds(target):
    if target == "csv":
        return sorted(glob.glob(os.path.join(DATA, "ncu", "*.raw.csv")) +
                      glob.glob(os.path.join(DATA, "ncurep", "*.raw.csv")) +
                      glob.glob(os.path.join(DATA, "gemmprog", "*.raw.csv")))
    if target == "rules":
        return sorted(glob.glob(os.path.join(DATA, "gemmprog", "*.rules.json")) +
                      glob.glob(os.path.join(DATA, "ncurep", "*.rules.json")))
    if target == "ncurep":
        return sorted(p for p in glob.glob(os.path.join(DATA, "ncurep", "*.ncu-rep")) if os.path.getsize(p) < 3e6)
    if target == "compare":
        return sorted(glob.glob(os.path.join(HERE, "corpus", "compare", "*.json")))
    if target == "mcp":
        return sorted(glob.glob(os.path.join(HERE, "corpus", "mcp", "*.jsonl")))
    raise SystemExit("unknown target " + target)


# ---- mutations -------------------------------------------------------------------------------

def mutate_bytes(rng, data):
    data = bytearray(data)
    op = rng.randrange(5)
    if op == 0 and data:  # cut: an interrupted write or a partial copy
        return bytes(data[:rng.randrange(len(data))])
    if op == 1 and data:  # flip a few bytes
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data)
    if op == 2:  # foreign bytes somewhere
        i = rng.randrange(len(data) + 1)
        return bytes(data[:i]) + rng.choice(FOREIGN) + bytes(data[i:])
    if op == 3 and data:  # drop a span
        i = rng.randrange(len(data))
        return bytes(data[:i] + data[i + rng.randint(1, 4096):])
    i = rng.randrange(len(data) + 1)  # duplicate a span
    return bytes(data[:i] + data[i:i + rng.randint(1, 4096)] + data[i:])


def split_csv_line(line):
    cells, cur, q = [], [], False
    for ch in line:
        if ch == '"':
            q = not q
            cur.append(ch)
        elif ch == "," and not q:
            cells.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    cells.append("".join(cur))
    return cells


def mutate_csv(rng, data):
    """Structure-aware: a value, a unit or a kernel name of an ncu raw export."""
    if rng.random() < 0.3:
        return mutate_bytes(rng, data)
    text = data.decode("utf-8", "surrogateescape")
    lines = text.split("\n")
    hdr = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if hdr is None or hdr + 2 >= len(lines):
        return mutate_bytes(rng, data)
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(4)
        if kind == 0:  # a unit of the units row
            row = split_csv_line(lines[hdr + 1])
            c = rng.randrange(1, len(row))
            row[c] = '"%s"' % rng.choice(UNITS)
            lines[hdr + 1] = ",".join(row)
        elif kind in (1, 2):  # a value of a kernel row
            r = rng.randrange(hdr + 2, len(lines))
            row = split_csv_line(lines[r])
            if len(row) < 3:
                continue
            c = rng.randrange(1, len(row))
            row[c] = '"%s"' % rng.choice(IMPOSSIBLE)
            lines[r] = ",".join(row)
        else:  # a foreign byte in the kernel name
            r = rng.randrange(hdr + 2, len(lines))
            lines[r] = lines[r].replace("(", "\udcff(", 1)
    return "\n".join(lines).encode("utf-8", "surrogateescape")


def json_leaves(j, path=()):
    if isinstance(j, dict):
        for k, v in j.items():
            yield from json_leaves(v, path + (k,))
    elif isinstance(j, list):
        for i, v in enumerate(j):
            yield from json_leaves(v, path + (i,))
    yield path


def set_at(j, path, value):
    for p in path[:-1]:
        j = j[p]
    j[path[-1]] = value


JSON_VALUES = [None, "1", "", -1, 0, 5e-324, 1e308, -1e308, [], {}, "x" * 100, True, 1, 2, 3, "\udcff"]


def mutate_json(rng, data):
    if rng.random() < 0.3:
        return mutate_bytes(rng, data)
    try:
        j = json.loads(data)
    except ValueError:
        return mutate_bytes(rng, data)
    for _ in range(rng.randint(1, 3)):
        paths = [p for p in json_leaves(j) if p]  # again: an earlier change may have replaced a branch
        if paths:
            set_at(j, rng.choice(paths), rng.choice(JSON_VALUES))
    return json.dumps(j).encode("utf-8", "surrogateescape")


def mutate_compare(rng, data):
    """Times that cannot be: negated, denormal, infinite, inconsistent with the median."""
    try:
        j = json.loads(data)
        v = rng.choice(j["versions"])
    except (ValueError, KeyError, IndexError):
        return mutate_bytes(rng, data)
    key = rng.choice(["time_samples_ms", "call_samples_ms", "kernel_samples_ms"])
    s = v.get(key) or []
    op = rng.randrange(7)
    if op == 0:
        v[key] = [-x for x in s]
    elif op == 1:
        v[key] = [5e-324 for _ in s]
    elif op == 2 and s:
        s[rng.randrange(len(s))] = rng.choice([1e308, -1.0, 0.0])
        v[key] = s
    elif op == 3:
        v[key] = [x * 1000 for x in s]  # samples a thousand times the stated median
    elif op == 4:
        v["time_ms"] = rng.choice([-v.get("time_ms", 1), 0, 1e300, 5e-324])
    elif op == 5:
        v[key] = s * 20000  # many samples: bounded work
    else:
        return mutate_json(rng, data)
    return json.dumps(j).encode()


def garbage_compare(data):
    """True when a comparison.json's times cannot be (the gate must not pass on it)."""
    try:
        j = json.loads(data)
        for v in j.get("versions", []):
            t = v.get("time_ms")
            if t is not None and (not isinstance(t, (int, float)) or not math.isfinite(t) or t <= 0):
                return True
            for key in ("time_samples_ms", "call_samples_ms", "kernel_samples_ms"):
                s = v.get(key) or []
                if any(not isinstance(x, (int, float)) or not math.isfinite(x) or x <= 1e-300 for x in s):
                    return True
                if key == "time_samples_ms" and s and t:
                    med = sorted(s)[len(s) // 2]
                    if not (0.5 * t <= med <= 2 * t):
                        return True
    except (ValueError, AttributeError, TypeError):
        return False  # not JSON: a refusal is all that can happen
    return False


# ---- running ---------------------------------------------------------------------------------

class Stats:
    def __init__(self):
        self.runs = 0
        self.exits = {}
        self.failures = {"internal_error": 0, "traceback": 0, "reader_text": 0, "verdict_on_impossible": 0,
                         "gate_passed_on_garbage": 0, "hang": 0, "incomplete_output": 0, "bad_exit": 0,
                         "not_utf8": 0, "sanitizer": 0}

    def summary(self, t0, target):
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
        return {"target": target, "seconds": round(time.time() - t0, 1), "runs": self.runs,
                "exits": {str(k): v for k, v in sorted(self.exits.items(), key=lambda kv: str(kv[0]))},
                **self.failures, "peak_child_rss_mib": round(peak, 1)}


def run(cmd, timeout, stdin=None, env=None):
    try:
        p = subprocess.run(cmd, input=stdin, capture_output=True, timeout=timeout, env=env)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        return "hang", (e.stdout or b"") + (e.stderr or b"")


def check_common(rc, out, st):
    bad = []
    if rc == "hang":
        bad.append("hang")
    elif rc not in (0, 1, 2):
        bad.append("bad_exit")
    if b"internal error" in out:
        bad.append("internal_error")
    if b"Traceback (most recent call last)" in out:
        bad.append("traceback")
    if b"in method '" in out or b"json.exception" in out:
        bad.append("reader_text")
    if re.search(rb"ERROR: (Address|Leak)Sanitizer|: runtime error: ", out):  # the sanitizer build
        bad.append("sanitizer")
    return bad


def outputs_complete(out_dir, names):
    """Each report named is complete (JSON parses, every file valid UTF-8) or absent."""
    for n in names:
        p = os.path.join(out_dir, n)
        if not os.path.exists(p):
            continue
        b = open(p, "rb").read()
        try:
            b.decode("utf-8")
        except UnicodeDecodeError:
            return "not_utf8"
        if n.endswith(".json"):
            try:
                json.loads(b)
            except ValueError:
                return "incomplete_output"
    return None


def impossible_verdict(rc, out, out_dir):
    if rc != 0:
        return False
    text = out.decode("utf-8", "replace")
    # The refusal itself quotes the dropped value ("impossible value ignored: ... = 9.76e+07 %"):
    # only what is printed as a finding, a class or a share counts.
    kept = "\n".join(line for line in text.splitlines()
                     if "impossible" not in line and not re.search(r"__\S+ = ", line))
    if BAD_PCT.search(kept):
        return True
    p = os.path.join(out_dir, "analysis.json")
    if os.path.exists(p):
        try:
            j = json.loads(open(p, "rb").read())
        except ValueError:
            return False
        for k in j.get("kernels", []) if isinstance(j, dict) else []:
            for key in ("sm_sol_pct", "memory_sol_pct"):
                v = k.get(key) if isinstance(k, dict) else None
                if isinstance(v, (int, float)) and not (-1 <= v <= 105):
                    return True
    return False


def one_case(args, target, data, seed_path, work, st, rng):
    st.runs += 1
    out_dir = os.path.join(work, "out")
    shutil.rmtree(out_dir, ignore_errors=True)
    bad = []
    if target == "csv":
        inp = os.path.join(work, "in.raw.csv")
        open(inp, "wb").write(data)
        rc, out = run([args.kprof, "analyze", inp, "-o", out_dir, "--json", "--no-roofline"], args.timeout)
        if impossible_verdict(rc, out, out_dir):
            bad.append("verdict_on_impossible")
        names = ["analysis.json", "ncu_summary.md", "ncu_details.md"]
    elif target == "rules":
        base = seed_path[:-len(".rules.json")]
        inp = os.path.join(work, "in.raw.csv")
        shutil.copy(base + ".raw.csv", inp)
        open(os.path.join(work, "in.rules.json"), "wb").write(data)
        rc, out = run([args.kprof, "analyze", inp, "-o", out_dir, "--json", "--no-roofline"], args.timeout)
        names = ["analysis.json", "ncu_summary.md", "ncu_details.md"]
    elif target == "ncurep":
        inp = os.path.join(work, "in.ncu-rep")
        open(inp, "wb").write(data)
        rc, out = run([args.kprof, "analyze", inp, "-o", out_dir, "--json", "--no-roofline"], args.timeout)
        if impossible_verdict(rc, out, out_dir):
            bad.append("verdict_on_impossible")
        names = ["analysis.json", "ncu_summary.md", "ncu_details.md"]
    elif target == "compare":
        a = os.path.join(work, "a.json")
        b = os.path.join(work, "b.json")
        base = open(seed_path, "rb").read()
        open(a, "wb").write(base if rng.random() < 0.5 else data)
        open(b, "wb").write(data)
        rc, out = run([args.kprof, "compare", a, b, "--fail-if-slower", "5", "-o", out_dir], args.timeout)
        if rc == 0 and (garbage_compare(data) or BAD_PCT.search(out.decode("utf-8", "replace"))):  # noqa: E501
            bad.append("gate_passed_on_garbage")
        names = ["comparison.json", "comparison.md"]
    else:  # mcp
        rc, out = run([sys.executable, "-m", "kprof", "mcp"], args.timeout, stdin=data)
        if rc == "hang":
            rc = "hang"
        names = []
    st.exits[rc] = st.exits.get(rc, 0) + 1
    bad += check_common(rc, out, st)
    if rc != "hang":
        why = outputs_complete(out_dir, names)
        if why:
            bad.append(why)
    for b in set(bad):
        st.failures[b] += 1
    if bad and args.save:
        d = os.path.join(args.save, target)
        os.makedirs(d, exist_ok=True)
        h = hashlib.sha1(data).hexdigest()[:12]
        ext = {"csv": ".raw.csv", "rules": ".rules.json", "ncurep": ".ncu-rep", "compare": ".json",
               "mcp": ".jsonl"}[target]
        path = os.path.join(d, h + ext)
        if not os.path.exists(path):
            open(path, "wb").write(data)
            if target in ("rules", "compare"):
                open(path + ".seed", "w").write(os.path.relpath(seed_path, ROOT) + "\n")
        sys.stderr.write("FAIL %s %s: %s (exit %s)\n%s\n" % (target, path, ",".join(sorted(set(bad))), rc,
                                                           out.decode("utf-8", "replace")[-600:]))
    return bad


def skip_reason(target, kprof):
    if target == "ncurep":
        p = subprocess.run([sys.executable, "-c", "import ncu_report"], capture_output=True)
        if p.returncode:
            return "no ncu_report module imports (pip install ncu-report)"
    if target == "mcp":
        p = subprocess.run([sys.executable, "-c", "import mcp, kprof"], capture_output=True)
        if p.returncode:
            return "the MCP SDK or the kprof package is not importable here (pip install 'mcp>=2,<3' and kprof)"
    return None


MUTATORS = {"csv": mutate_csv, "rules": mutate_json, "ncurep": mutate_bytes, "compare": mutate_compare,
            "mcp": mutate_bytes}


def total(summaries):
    """The counts over every target that ran: runs, exits by code, each oracle's failures, the
    largest child's peak resident memory (MiB) and the wall time (s)."""
    ran = [s for s in summaries if "runs" in s]
    out = {"targets_run": len(ran), "seconds": round(sum(s["seconds"] for s in ran), 1),
           "runs": sum(s["runs"] for s in ran), "exits": {}}
    for s in ran:
        for code, n in s["exits"].items():
            out["exits"][code] = out["exits"].get(code, 0) + n
    for key in Stats().failures:
        out[key] = sum(s[key] for s in ran)
    out["peak_child_rss_mib"] = max([s["peak_child_rss_mib"] for s in ran] or [0])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kprof", default=os.path.join(ROOT, "build", "kprof"))
    ap.add_argument("--target", action="append", choices=sorted(MUTATORS), help="default: all")
    ap.add_argument("--seconds", type=float, default=30, help="per target")
    ap.add_argument("--total-seconds", type=float, default=0,
                    help="instead of --seconds: this budget shared evenly by the targets that run")
    ap.add_argument("--runs", type=int, default=0, help="stop after this many runs per target")
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--timeout", type=float, default=30, help="a run longer than this is a hang (s)")
    ap.add_argument("--save", default=os.path.join(HERE, "regressions"))
    ap.add_argument("--replay", action="store_true", help="run the committed regressions and seeds only")
    ap.add_argument("--then-fuzz", action="store_true", help="with --replay: then fuzz --seconds per target")
    args = ap.parse_args()
    args.kprof = os.path.abspath(args.kprof)
    args.save = args.save or None
    targets = args.target or sorted(MUTATORS)
    summaries, ok = [], True
    skipped = {t: skip_reason(t, args.kprof) for t in targets}
    if args.total_seconds:
        args.seconds = args.total_seconds / max(1, sum(1 for t in targets if not skipped[t]))
    for target in targets:
        why = skipped[target]
        if why:
            summaries.append({"target": target, "skipped": why})
            continue
        rng = random.Random(args.seed)
        st = Stats()
        t0 = time.time()
        corpus = seeds(target)
        work = tempfile.mkdtemp(prefix="kprof-fuzz-")
        try:
            if args.replay:
                saved = args.save
                args.save = None
                for path in corpus + sorted(glob.glob(os.path.join(HERE, "regressions", target, "*"))):
                    if path.endswith(".seed"):
                        continue
                    seed_path = path
                    if os.path.exists(path + ".seed"):
                        seed_path = os.path.join(ROOT, open(path + ".seed").read().strip())
                    if one_case(args, target, open(path, "rb").read(), seed_path, work, st, rng):
                        sys.stderr.write("REGRESSION %s\n" % path)
                args.save = saved
            if not args.replay or args.then_fuzz:
                t1 = last = time.time()
                while time.time() - t1 < args.seconds and (not args.runs or st.runs < args.runs):
                    seed_path = rng.choice(corpus)
                    data = MUTATORS[target](rng, open(seed_path, "rb").read())
                    one_case(args, target, data, seed_path, work, st, rng)
                    if time.time() - last >= 60:  # progress on a long run: one line a minute
                        last = time.time()
                        sys.stderr.write("progress %s\n" % json.dumps(st.summary(t0, target)))
        finally:
            shutil.rmtree(work, ignore_errors=True)
        s = st.summary(t0, target)
        summaries.append(s)
        ok = ok and not any(st.failures.values())
        sys.stderr.write(json.dumps(s) + "\n")
    print(json.dumps({"seed": args.seed, "total": total(summaries), "targets": summaries}, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
