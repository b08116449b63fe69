#!/usr/bin/env python3
"""Writes a large ncu raw-page CSV export for benchmarking `kprof analyze` on huge reports.

It replicates the real H200 kernel rows of tests/data/ncu/{copy,fma,strided,tiny}.raw.csv (same
2238-column `--set full` header, ncu's units row kept) until the file reaches --size-mb: each copy
gets its own launch ID, one of --names kernel names, and its gpu__time_duration.sum scaled by a
seeded random factor (0.5x to 2x), so the launches differ in GPU time as an autotuning or
multi-kernel report does. Every other cell is a real value. The output is not committed (it is
large): bench/RESULTS.md records how it was made and what kprof did with it.

    python3 bench/make_big_export.py --out /tmp/big.raw.csv --size-mb 200
"""
import argparse
import csv
import io
import os
import random

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = ["copy", "fma", "strided", "tiny"]


SCALE = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6,
         "Gbyte": 1e9, "Tbyte": 1e12, "hz": 1.0, "Khz": 1e3, "Mhz": 1e6, "Ghz": 1e9}


def factor(unit):
    """Scale of a unit against its base ("Gbyte/s" -> 1e9, "us" -> 1e-6); None when unknown."""
    num, _, den = unit.partition("/")
    f = SCALE.get(num)
    if f is None:
        return None
    if den:
        d = SCALE.get(den)
        if d is None:
            return f if den in ("cycle", "block", "sector") else None
        f /= d
    return f


def convert(value, src_unit, dst_unit):
    """`value` written in src_unit, rewritten in dst_unit (the output's units row)."""
    if src_unit == dst_unit:
        return value
    a, b = factor(src_unit), factor(dst_unit)
    try:
        x = float(value.replace(",", ""))
    except ValueError:
        return value
    if a is None or b is None:
        return value
    return "{:.6g}".format(x * a / b)


def read_export(name):
    with open(os.path.join(ROOT, "tests", "data", "ncu", name + ".raw.csv"), newline="") as f:
        rows = list(csv.reader(f))
    h = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
    return rows[h], rows[h + 1], rows[h + 2:]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--size-mb", type=float, default=200.0)
    ap.add_argument("--names", type=int, default=40, help="distinct kernel names")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    header, units, rows = None, None, []
    for name in SOURCES:
        h, u, r = read_export(name)
        if header is None:
            header, units = h, u
        if h != header:
            raise SystemExit(name + ".raw.csv has another header")
        rows += [(name, [convert(v, u[i], units[i]) for i, v in enumerate(x)]) for x in r]
    col = {c: i for i, c in enumerate(header)}
    t_col, id_col, name_col = col["gpu__time_duration.sum"], col["ID"], col["Kernel Name"]
    rnd = random.Random(a.seed)
    limit = int(a.size_mb * 1e6)
    with open(a.out, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n")
        w.writerow(header)
        w.writerow(units)
        n = 0
        while f.tell() < limit:
            src, r = rows[n % len(rows)]
            r = list(r)
            r[id_col] = str(n)
            k = rnd.randrange(a.names)
            r[name_col] = "{}_kernel_v{}(float *, const float *, int)".format(src, k)
            t = float(r[t_col].replace(",", "")) * rnd.uniform(0.5, 2.0)
            r[t_col] = "{:.2f}".format(t)
            w.writerow(r)
            n += 1
    print("{}: {} launches, {:.1f} MB".format(a.out, n, os.path.getsize(a.out) / 1e6))


if __name__ == "__main__":
    main()
