"""The pytest gate on the GPU (tests/gpu/scenarios.sh stage wheel): saved once, then passing on the
unchanged kernel and failing on the planted 10%-slower one (KPROF_GATE_SLOWDOWN_PCT=10)."""

import os

HERE = os.path.dirname(os.path.abspath(__file__))
SLOWDOWN = os.environ.get("KPROF_GATE_SLOWDOWN_PCT", "0")


def test_spin_gate(kprof_gate):
    kprof_gate(os.path.join(HERE, "spin_gate.cu"), os.path.join(HERE, "spin_ref.py"), {"kcycles": 100},
               sizes={"out": 1}, build=True, nvcc_flags=[f"-DSLOWDOWN_PCT={SLOWDOWN}"])
