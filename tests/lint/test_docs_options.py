#!/usr/bin/env python3
"""The option table of a doc (docs/USAGE.md, once README.md) checked against the option table (kprof __options): every option it
names exists for every command it lists, and every default it states is the table's (the same
number or word). Usage: test_docs_options.py KPROF_BINARY DOC.md. Exit 0 / 1 with each mismatch."""
import json
import re
import subprocess
import sys


def cells(line):
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def main():
    binary, readme = sys.argv[1], sys.argv[2]
    table = json.loads(subprocess.run([binary, "__options"], capture_output=True, text=True, check=True).stdout)
    rows = {c: {r["flag"]: r for r in rs} for c, rs in table["commands"].items()}
    for c, rs in table["commands"].items():
        for r in rs:
            if r["short"]:
                rows[c].setdefault(r["short"], r)
    problems, checked_flags, checked_defaults = [], 0, 0
    in_table = False
    for no, line in enumerate(open(readme, encoding="utf-8"), 1):
        if line.startswith("| option | commands | default |"):
            in_table = True
            continue
        if in_table and not line.startswith("|"):
            in_table = False
        if not in_table or line.startswith("|---"):
            continue
        opt, commands, default = cells(line)[:3]
        flags = re.findall(r"`(--?[a-z][a-z0-9-]*)", opt)
        cmds = [c.strip() for c in re.sub(r"\(.*?\)", "", commands).split(",") if c.strip()]
        for flag in flags:
            for cmd in cmds:
                checked_flags += 1
                if flag not in rows.get(cmd, {}):
                    problems.append(f"{readme}:{no}: {flag} is not an option of kprof {cmd} in the option table")
        # One default per option, separated by ';' or ',' when several options share a row.
        parts = [p.strip() for p in re.split(r";|, (?![^()]*\))", default)]
        if " / " in opt:  # "--warmup N / --warmup-ms T": one default cell for the pair
            parts = [default] * len(flags)
        elif len(parts) != len(flags):
            parts = [default] if len(flags) == 1 else []
        for flag, part in zip(flags, parts):
            r = rows.get(cmds[0], {}).get(flag) if cmds else None
            if not r or r["default"] is None or r["type"] == "flag":
                continue
            want = r["default"]
            text = f"{want:g}" if isinstance(want, float) else str(want)
            checked_defaults += 1
            if not re.search(r"(?<![\w.])" + re.escape(text) + r"(?![\w.])", part):
                problems.append(f"{readme}:{no}: {flag} default '{part}' is not the table's {text}")
    for p in problems:
        print("FAIL", p)
    print(f"{readme} option table: {checked_flags} option/command pairs and {checked_defaults} defaults checked, "
          f"{len(problems)} mismatch(es)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
