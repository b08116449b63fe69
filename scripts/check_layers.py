#!/usr/bin/env python3
"""kprof's layer lint: every #include "x/..." under src/ must point to the same folder or a lower layer.

Layers, lowest first (docs/ARCHITECTURE.md):
  core < device < python < kernel < stages < report < flows < cli
and inside stages:  stages/env < stages/{verify,timing,ncu} < stages/analysis
(verify, timing and ncu do not include each other).

Usage: check_layers.py [--graph] [SRC_DIR]
  exit 0 when no include goes up (or sideways between stages), 1 with every offending line listed.
  --graph prints the include graph between folders ("from -> to  (count)") and checks as well.
"""
import os
import re
import sys

LAYERS = ["core", "device", "python", "kernel", "stages", "report", "flows", "cli"]
STAGE_RANK = {"env": 0, "verify": 1, "timing": 1, "ncu": 1, "analysis": 2}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCE_EXT = (".cpp", ".hpp", ".cu", ".cuh", ".h")


def folder_of(rel):
    """'stages/ncu/csv.hpp' -> 'stages/ncu'; 'core/text.hpp' -> 'core'; None when not a kprof path."""
    parts = rel.split("/")
    if len(parts) < 2 or parts[0] not in LAYERS:
        return None
    if parts[0] == "stages":
        return "stages/" + parts[1] if len(parts) >= 3 else None
    return parts[0]


def allowed(src, dst):
    """Whether folder `src` may include a header of folder `dst`."""
    if src == dst:
        return True
    ls, ld = LAYERS.index(src.split("/")[0]), LAYERS.index(dst.split("/")[0])
    if ls != ld:
        return ld < ls
    # both in stages, different stages: only a strictly lower stage
    a, b = src.split("/")[1], dst.split("/")[1]
    return a in STAGE_RANK and b in STAGE_RANK and STAGE_RANK[b] < STAGE_RANK[a]


def scan(src_dir):
    """Yields (file, line_no, line, from_folder, to_folder) for every kprof include."""
    for root, _, files in os.walk(src_dir):
        for name in sorted(files):
            if not name.endswith(SOURCE_EXT):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src_dir).replace(os.sep, "/")
            src = folder_of(rel)
            with open(path, encoding="utf-8", errors="replace") as f:
                for no, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = m.group(1)
                    dst = folder_of(target)
                    if dst is None and "/" in target:
                        dst = "?" + target.split("/")[0]
                    if dst is None:
                        continue
                    yield rel, no, line.rstrip(), src, dst


def main(argv):
    graph = "--graph" in argv
    args = [a for a in argv if a != "--graph"]
    src_dir = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    edges, bad = {}, []
    for rel, no, line, src, dst in scan(src_dir):
        if src is None:
            bad.append(f"src/{rel}:{no}: file outside every layer folder ({', '.join(LAYERS)}): {line}")
            continue
        if src != dst:
            edges[(src, dst)] = edges.get((src, dst), 0) + 1
        if dst.startswith("?"):
            bad.append(f"src/{rel}:{no}: includes a folder that is no layer: {line}")
        elif not allowed(src, dst):
            bad.append(f"src/{rel}:{no}: {src} includes the higher (or sibling) layer {dst}: {line}")
    if graph:
        for (a, b), n in sorted(edges.items()):
            print(f"{a} -> {b}  ({n})")
    if bad:
        print("kprof layer lint: includes must go to the same folder or a lower layer "
              f"({' < '.join(LAYERS)}; stages/env < stages/verify|timing|ncu < stages/analysis)", file=sys.stderr)
        for b in bad:
            print(b, file=sys.stderr)
        print(f"{len(bad)} offending include(s)", file=sys.stderr)
        return 1
    if not graph:
        print(f"kprof layer lint: ok ({sum(edges.values())} includes between folders, none upward)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
