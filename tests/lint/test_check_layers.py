#!/usr/bin/env python3
"""The layer lint (scripts/check_layers.py) catches what it exists for: an upward include, two
modules of one folder that include each other, a file write in stages/, a raw metric name
outside the metric catalog and a finding id outside the finding catalog. Each planted in a
small src/ tree of its own; the clean tree passes. Usage: test_check_layers.py SCRIPTS_DIR"""
import os
import subprocess
import sys
import tempfile


def tree(files):
    root = tempfile.mkdtemp(prefix="kprof_lint_")
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    return root


def lint(script, src):
    r = subprocess.run([sys.executable, script, src], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def main():
    script = os.path.join(sys.argv[1], "check_layers.py")
    clean = {
        "core/a.hpp": "#pragma once\n",
        "flows/run/run_request.hpp": '#include "core/a.hpp"\n',
        "flows/run/run_flow.hpp": '#include "flows/run/run_request.hpp"\n',
        "flows/run/run_steps.hpp": '#include "flows/run/run_request.hpp"\n',
        "flows/run/run_flow.cpp": '#include "flows/run/run_flow.hpp"\n#include "flows/run/run_steps.hpp"\n',
        "stages/verify/reference.hpp": "#pragma once\n",
        "stages/verify/reference_state.hpp": '#include "stages/verify/reference.hpp"\n',
        "stages/verify/reference.cpp": '#include "stages/verify/reference_state.hpp"\n// write_file(x) in a comment\n',
        "stages/ncu/metrics.hpp": 'inline constexpr const char* kDramRead = "dram__bytes_read.sum";\n',
        "report/r.cpp": "int x;  // dram__bytes_read.sum named in a comment\n",
        "stages/analysis/finding_catalog.cpp": '{FindingId::BankConflicts, "bank-conflicts", "Shared-memory bank conflicts"},\n',
        "stages/analysis/assess.cpp": 'bool b = is_finding(id, FindingId::BankConflicts);  // "bank-conflicts"\n',
        "api/options.hpp": '#include "report/r.hpp"\n#include "stages/ncu/metrics.hpp"\n',
        "flows/uses_api.cpp": '#include "api/options.hpp"\n',
    }
    failures = []
    rc, out = lint(script, tree(clean))
    if rc != 0:
        failures.append("the clean tree failed:\n" + out)
    cases = {
        "upward include": ({"core/b.cpp": '#include "flows/run/run_flow.hpp"\n'}, "includes the higher"),
        "two-way pair": ({"flows/run/run_steps.cpp": '#include "flows/run/run_steps.hpp"\n#include "flows/run/run_flow.hpp"\n'},
                         "modules include each other: src/flows/run/run_flow -> src/flows/run/run_steps -> src/flows/run/run_flow"),
        "report includes api": ({"report/s.cpp": '#include "api/options.hpp"\n'}, "includes the higher"),
        "api includes flows": ({"api/requests.cpp": '#include "flows/run/run_flow.hpp"\n'}, "includes the higher"),
        "stage writes a file": ({"stages/timing/t.cpp": 'void f() { write_file_atomic("x", "y"); }\n'},
                                "a stage writes a file"),
        "stage ofstream": ({"stages/ncu/n.cpp": "std::ofstream out(path);\n"}, "a stage writes a file"),
        "raw metric name": ({"report/q.cpp": 'auto s = std::string("see dram__bytes_read.sum");\n'},
                            "a raw ncu metric name outside the metric catalog"),
        "finding id": ({"report/f.cpp": 'if (f.id == "bank-conflicts") return 1;\n'},
                       "a finding id outside the finding catalog"),
        "stall id built": ({"stages/analysis/s.cpp": 'std::string id = "stall-" + reason;\n'},
                           "a finding id outside the finding catalog"),
    }
    for name, (extra, expect) in cases.items():
        rc, out = lint(script, tree({**clean, **extra}))
        if rc != 1 or expect not in out:
            failures.append(f"{name}: exit {rc}, expected 1 with '{expect}':\n{out}")
    for f in failures:
        print("FAIL", f)
    print(f"{len(cases) + 1 - len(failures)} of {len(cases) + 1} lint cases behave")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
