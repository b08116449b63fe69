#!/usr/bin/env python3
"""kprof's layer lint: every #include "x/..." under src/ must point to the same folder or a lower layer.

Layers, lowest first (docs/ARCHITECTURE.md):
  core < device < python < kernel < stages < report < api < flows < cli
and inside stages:  stages/env < stages/{verify,timing,ncu} < stages/analysis < stages/results
(verify, timing and ncu do not include each other).

Two more rules, checked on the same pass:
  - no two modules of one folder include each other, directly or round a longer cycle (a module is
    a .cpp/.hpp pair: flows/run_flow.cpp and flows/run_flow.hpp are the module flows/run_flow; a
    header named X_detail, X_state or X_py belongs to module X);
  - stages measure and return values: no file under src/stages/ writes a file (write_file,
    write_file_atomic, std::ofstream, fopen, fwrite, ::write, mkstemp); scratch files go through
    core's ScratchFile, outputs through flows/;
  - raw ncu metric names ("dram__bytes_read.sum") appear in code only in the metric catalog
    (stages/ncu/metrics.hpp/.cpp) and in the texts kprof hands ncu (METRIC_NAME_FILES below);
    everything else names them through the catalog's constants. Comments may name them;
  - finding ids ("bank-conflicts") appear as string literals only in the finding catalog
    (stages/analysis/finding_catalog.hpp/.cpp, FINDING_CATALOG below): the rest reads the row
    (finding_key, find_finding_row). The ids are read from the catalog's rows; the few literals
    that spell the same word with another meaning are listed in FINDING_ID_EXCEPTIONS.

Usage: check_layers.py [--graph] [SRC_DIR]
  exit 0 when no include goes up (or sideways between stages), 1 with every offending line listed.
  --graph prints the include graph between folders ("from -> to  (count)") and checks as well.
"""
import os
import re
import sys

LAYERS = ["core", "device", "python", "kernel", "stages", "report", "api", "flows", "cli"]
STAGE_RANK = {"env": 0, "verify": 1, "timing": 1, "ncu": 1, "analysis": 2, "results": 3}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCE_EXT = (".cpp", ".hpp", ".cu", ".cuh", ".h")
METRIC_NAME = re.compile(r'"[^"\n]*\b(sm|smsp|l1tex|lts|dram|gpu|gpc|launch|device|fbpa|tpc|idc|pm)__[a-z0-9_]')
# Where raw metric names may be written, and why.
METRIC_NAME_FILES = {
    "stages/ncu/metrics.hpp": "the metric catalog",
    "stages/ncu/metrics.cpp": "the metric catalog",
    "stages/ncu/source_section.cpp": "the section file ncu reads (its text; SourceSection tests check it)",
    "stages/ncu/ncu_rep_py.cpp": "the .ncu-rep reader's Python (its metric lists; SourceSection tests check them)",
    "core/tools.hpp": "the environment's counter probe: one metric, below the catalog's layer",
    "stages/timing/gpu_duration.hpp": "the timing's range profiler: one metric, beside the catalog's layer",
}
FINDING_CATALOG = ("stages/analysis/finding_catalog.hpp", "stages/analysis/finding_catalog.cpp")
FINDING_ROW = re.compile(r'FindingId::\w+,\s*"([^"]+)"')
STRING_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
# Literals equal to a finding id that mean something else, and why.
FINDING_ID_EXCEPTIONS = {
    ("stages/analysis/hot_lines.cpp", "divergence"): "a hot line's waste kind (hot lines JSON), not the finding",
    ("report/hot_lines_report.cpp", "divergence"): "a hot line's waste kind (hot lines JSON), not the finding",
    ("stages/analysis/assess.cpp", "divergence"): "the area of the branch_resolving stall reason",
}
FILE_WRITE = re.compile(r"\b(write_file_atomic|write_file|fopen|fwrite|mkstemps?)\s*\(|std::ofstream|::write\s*\(")


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
    for rel, no, _, line in code_lines(src_dir):
        m = INCLUDE.match(line)
        if not m:
            continue
        target = m.group(1)
        dst = folder_of(target)
        if dst is None and "/" in target:
            dst = "?" + target.split("/")[0]
        if dst is None:
            continue
        yield rel, no, line, folder_of(rel), dst


DETAIL_SUFFIXES = ("_detail", "_state", "_py")


def module_of(path):
    """'stages/verify/reference_state' -> 'stages/verify/reference': a module's detail header (its
    private state, its embedded Python source, helpers of its files) belongs to the module."""
    for suffix in DETAIL_SUFFIXES:
        if path.endswith(suffix):
            return path[: -len(suffix)]
    return path


def module_cycles(src_dir):
    """Cycles between modules of one folder (a module: a file name without its extension), each as
    a list of module paths, the first repeated at the end; [] when none."""
    edges = {}
    for rel, _, _, line in code_lines(src_dir):
        m = INCLUDE.match(line)
        if not m:
            continue
        mod = module_of(os.path.splitext(rel)[0])
        target = module_of(os.path.splitext(m.group(1))[0])
        if target != mod and os.path.dirname(target) == os.path.dirname(mod):
            edges.setdefault(mod, set()).add(target)
    cycles, seen = [], set()
    for start in sorted(edges):
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in sorted(edges.get(node, ())):
                if nxt == start:
                    key = frozenset(path)
                    if key not in seen:
                        seen.add(key)
                        cycles.append(path + [start])
                elif nxt not in path:
                    stack.append((nxt, path + [nxt]))
    return cycles


def code_lines(src_dir, skip=()):
    """(rel, line_no, code, line) of every source line under `src_dir` outside the files in `skip`,
    `code` being the line without its // comment."""
    for root, _, files in os.walk(src_dir):
        for name in sorted(files):
            if not name.endswith(SOURCE_EXT):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src_dir).replace(os.sep, "/")
            if rel in skip:
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                for no, line in enumerate(f, 1):
                    yield rel, no, line.split("//", 1)[0], line.rstrip()


def stage_file_writes(src_dir):
    """(file, line_no, line) for every file write under src/stages/ outside comments."""
    return [(rel, no, line) for rel, no, code, line in code_lines(src_dir)
            if rel.startswith("stages/") and FILE_WRITE.search(code)]


def raw_metric_names(src_dir):
    """(file, line_no, line) for every string literal holding a raw ncu metric name outside
    METRIC_NAME_FILES (comments skipped)."""
    return [(rel, no, line) for rel, no, code, line in code_lines(src_dir, METRIC_NAME_FILES)
            if METRIC_NAME.search(code)]


def finding_ids(src_dir):
    """The finding ids the catalog's rows hold ({} without a catalog)."""
    path = os.path.join(src_dir, FINDING_CATALOG[1])
    if not os.path.exists(path):
        return set()
    with open(path, encoding="utf-8", errors="replace") as f:
        return set(FINDING_ROW.findall(f.read()))


def finding_id_literals(src_dir):
    """(file, line_no, line) for every string literal equal to a finding id, or the "stall-" prefix
    of the stall findings' ids, outside the finding catalog (comments skipped)."""
    ids = finding_ids(src_dir)
    if not ids:
        return []
    out = []
    for rel, no, code, line in code_lines(src_dir, FINDING_CATALOG):
        for lit in STRING_LITERAL.findall(code):
            if (lit in ids or lit == "stall-") and (rel, lit) not in FINDING_ID_EXCEPTIONS:
                out.append((rel, no, line))
                break
    return out


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
    for cycle in module_cycles(src_dir):
        bad.append("modules include each other: " + " -> ".join("src/" + m for m in cycle) +
                   " (move what both need into a header of its own)")
    for rel, no, line in raw_metric_names(src_dir):
        bad.append(f"src/{rel}:{no}: a raw ncu metric name outside the metric catalog "
                   f"(use stages/ncu/metrics.hpp's constant): {line}")
    for rel, no, line in finding_id_literals(src_dir):
        bad.append(f"src/{rel}:{no}: a finding id outside the finding catalog "
                   f"(read its row: stages/analysis/finding_catalog.hpp): {line}")
    for rel, no, line in stage_file_writes(src_dir):
        bad.append(f"src/{rel}:{no}: a stage writes a file (stages return values; flows write): {line}")
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
        print(f"kprof layer lint: ok ({sum(edges.values())} includes between folders, none upward; "
              "no module cycle; no file write in stages/; metric names and finding ids from their catalogs)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
