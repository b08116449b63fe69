"""Planted for the GPU suite's `onesession` stage: Triton attention v1
(examples/attention/triton/v1.py), correct and timed like it, that aborts its process when it runs
under Nsight Compute: ncu's injection library is mapped into the profiled process (a library of
ncu's target/ folder, or named *injection*, under a path holding "nsight-compute"; kprof's own
ncu_report import, from extras/python, is not one). The injection's environment variables need not
stay set (ncu 2025.3 clears CUDA_INJECTION64_PATH once loaded). kprof's own check and timing load
none of it. In `kprof run`'s one ncu session it kills the session's runner (and its one Python): it
must cost only its own row; in the session of its own it aborts again."""
import importlib.util
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "kprof_planted_attention_v1", os.path.join(_here, "..", "..", "..", "examples", "attention", "triton", "v1.py"))
_v1 = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = _v1  # Triton looks its kernels' module up there
_spec.loader.exec_module(_v1)


def setup(B, H, N, D, seed=0, **kwargs):
    return _v1.setup(B, H, N, D, seed=seed, **kwargs)


def _under_ncu():
    if os.environ.get("CUDA_INJECTION64_PATH") or os.environ.get("NVTX_INJECTION64_PATH"):
        return True
    try:
        with open("/proc/self/maps") as f:
            return any("nsight-compute" in line and ("/target/" in line or "njection" in line) for line in f)
    except OSError:
        return False


def run_kernel(Q, K, V, output, B, H, N, D, **kwargs):
    if _under_ncu():
        os.abort()
    return _v1.run_kernel(Q, K, V, output, B, H, N, D, **kwargs)
