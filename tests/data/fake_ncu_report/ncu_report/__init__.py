"""A stand-in for Nsight Compute's closed `ncu_report` module (issue 50's tests): enough of its API
for kprof's reader (stages/ncu/ncu_rep_py.cpp) to read one launch by name. It writes the id of the
process that loads a report to REPORT.pid, and calls os.abort() (as a crash in the closed module
would end the process) when the report's file name contains "abort", or hangs when it contains
"hang". Used through KPROF_NCU_REPORT=tests/data/fake_ncu_report."""
import os
import time


class IAction:
    NameBase_FUNCTION = 0
    NameBase_DEMANGLED = 1
    NameBase_MANGLED = 2


class _Action:
    def name(self, base=0):
        return ["child_kernel", "child_kernel(float *)", "_Z12child_kernelPf"][base]


class _Range:
    def num_actions(self):
        return 1

    def action_by_idx(self, i):
        return _Action()


class _Report:
    def num_ranges(self):
        return 1

    def range_by_idx(self, i):
        return _Range()


def load_report(path):
    with open(path + ".pid", "w") as f:
        f.write(str(os.getpid()))
    name = os.path.basename(path)
    if "abort" in name:
        os.abort()
    if "hang" in name:
        time.sleep(3600)
    return _Report()
