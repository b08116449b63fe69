"""Planted for the GPU suite's `onesession` stage (issue 17): Triton attention v1
(examples/attention/triton/v1.py), correct and timed like it, that aborts its process when it runs
under Nsight Compute (ncu's injection sets CUDA_INJECTION64_PATH in the profiled process; kprof's
own check and timing do not). In `kprof run`'s one ncu session it kills the session's runner (and
its one Python): it must cost only its own row."""
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


def run_kernel(Q, K, V, output, B, H, N, D, **kwargs):
    if os.environ.get("CUDA_INJECTION64_PATH") or os.environ.get("NVTX_INJECTION64_PATH"):
        os.abort()
    return _v1.run_kernel(Q, K, V, output, B, H, N, D, **kwargs)
