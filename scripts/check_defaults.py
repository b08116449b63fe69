#!/usr/bin/env python3
"""Each of kprof's option defaults is stated once: in the constant of the stage that owns it.

Counts, for each default of issue 47's list, the places in kprof's code (src/ and python/kprof/,
not tests or docs) that state its value: a C++ initializer or constant (`warmup_ms = 100`,
`kDefaultWarmupMs = 100`), a Python default (`gpu: int = 0`, `default=10`), or a help text
(`"... (default 900)"`). A statement is attributed to a default by the NAME it is stated under
(and, for names shared by several defaults such as `timeout_s`, by the file that holds it), not
by the value alone: the three 60 s timeouts (a kernel call, an env probe, and, on today's main,
`kprof run --env-timeout`) are told apart although their values are equal.

Usage: check_defaults.py [--list] [ROOT]   (ROOT: the repository, default: this script's parent)
  exit 0 when every default is stated exactly once, 1 otherwise (each place listed).
  --list prints every default's places even when the count is right.
"""
import os
import re
import sys

# name: (value regex, [(name regex, file regex or None)])
# A line states the default when one of its names is followed on that line by `=`, `:` (a typed
# Python default), `{` or the word "default", then the value as a whole token.
DEFAULTS = {
    "warm-up 100 ms": (r"100(?:\.0)?", [(r"warmup_ms|kDefaultWarmupMs|warmup", None)]),
    "noise target 0.5%": (r"0\.5|0\.005", [(r"noise_target\w*|kDefaultNoiseTarget", None)]),
    "throttle threshold 75%": (r"75(?:\.0)?|0\.75", [(r"throttle_threshold\w*|clock_floor_frac|kDefaultClockFloorFrac",
                                                       None)]),
    "input sets 3": (r"3", [(r"input_sets|kDefaultInputSets", None)]),
    'metrics "kprof"': (r'"kprof"', [(r"metric_set|metrics|kDefaultMetricSet", None),
                                     (r"\n\s*", r"stages/ncu/runner\.hpp")]),
    "ncu timeout 900 s": (r"900(?:\.0)?", [(r"ncu_timeout\w*|kDefaultNcuTimeoutS", None),
                                           (r"timeout_s", r"stages/ncu/runner\.hpp")]),
    "top 10 hot lines": (r"10", [(r"\btop\b|hot_lines_top|kDefaultHotLinesTop", None)]),
    "env probe timeout 60 s": (r"60(?:\.0)?", [(r"env_timeout\w*|probe_timeout\w*|kDefaultEnvProbeTimeoutS", None),
                                               (r"timeout_s|timeout", r"stages/env/|cli/cmd_env|kprof/_api\.py.*env")]),
    "trials 2": (r"2", [(r"\btrials|kDefaultTrials", None)]),
    "seed 42": (r"42", [(r"\bseed|kDefaultSeed", None)]),
    "call timeout 60 s": (r"60(?:\.0)?", [(r"call_timeout_s|kDefaultCallTimeoutS", None),
                                          (r"timeout_s", r"kernel/kernel_spec\.hpp|stages/verify/check\.hpp|"
                                                         r"cli/kernel_options")]),
    "GPU 0": (r"0", [(r"\bgpu\b|kDefaultGpu", None)]),
    "nvcc timeout 600 s": (r"600(?:\.0)?", [(r"nvcc_timeout\w*|kDefaultNvccTimeoutS", None),
                                            (r"timeout_s", r"kernel/build\.hpp|cli/cmd_build")]),
    "one ncu session": (r'"one"|true', [(r"one_ncu_session|ncu_session|kDefaultOneNcuSession", None)]),
}

STATEMENT = r"(?<![.\w>])(?:{name})\w*\s*(?:=|:\s*[\w\[\], .\"]+=|\{{|,?\s*\(?default[:=]?\s*)\s*(?:{value})(?![\w.])"
HELP = r"(?:{name}).*\bdefault:?\s+(?:{value})(?![\w.])"
SOURCES = ("src", os.path.join("python", "kprof"))
EXTS = (".cpp", ".hpp", ".cu", ".py")


def files(root):
    for top in SOURCES:
        for d, _, names in os.walk(os.path.join(root, top)):
            for n in sorted(names):
                if n.endswith(EXTS):
                    yield os.path.join(d, n)


def code_of(line, py):
    """The line without its comment (// or #), strings kept: help texts state defaults too."""
    marker = "#" if py else "//"
    out, quote = [], None
    i = 0
    while i < len(line):
        c = line[i]
        if quote:
            if c == "\\":
                out.append(line[i:i + 2])
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif line.startswith(marker, i) and not (py and c == "#" and line[i - 1:i] == "&"):
            break
        out.append(c)
        i += 1
    return "".join(out)


def places(root):
    found = {k: [] for k in DEFAULTS}
    for path in files(root):
        rel = os.path.relpath(path, root)
        py = path.endswith(".py")
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        for no, raw in enumerate(lines, 1):
            line = code_of(raw, py)
            if "#include" in line or line.lstrip().startswith(("#", "//", "///")):
                continue
            for key, (value, names) in DEFAULTS.items():
                for name, where in names:
                    if where is not None and not re.search(where, rel + ("" if not py else "")):
                        continue
                    if name == r"\n\s*":  # a value on its own continuation line (clang-format's wrap)
                        prev = lines[no - 2] if no > 1 else ""
                        if re.search(r"metric_set\s*=\s*$", prev) and re.match(r"\s*(?:" + value + r")", line):
                            found[key].append(f"{rel}:{no}: {raw.strip()}")
                        continue
                    spelt = name.replace("_", "[-_]")
                    if re.search(STATEMENT.format(name=spelt, value=value), line) or \
                            re.search(HELP.format(name=spelt, value=value), line):
                        found[key].append(f"{rel}:{no}: {raw.strip()}")
                        break
    return found


def main(argv):
    show_all = "--list" in argv
    args = [a for a in argv if not a.startswith("--")]
    root = args[0] if args else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    found = places(root)
    bad = 0
    for key, where in found.items():
        ok = len(where) == 1
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} {len(where)} place(s): {key}")
        if show_all or not ok:
            for w in where:
                print("      " + w)
    print(f"{len(found) - bad} of {len(found)} defaults stated exactly once")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
