"""BROKEN ON PURPOSE: a Triton vector add (out = x + y) with a wrong tail mask.

The mask keeps a lane only when its WHOLE block lies inside the array (`(pid + 1) * BLOCK <= n`)
instead of `offs < n`, so the last, partial block writes nothing. When N is a multiple of
BLOCK = 1024 there is no partial block and the result is right; otherwise the last N % 1024
elements of out are never written and kprof check must fail.
Pass:  kprof check examples/triton/masked_bug/masked_bug.py --ref examples/triton/vector_add/ref.py --N=1048576
Fail:  kprof check examples/triton/masked_bug/masked_bug.py --ref examples/triton/vector_add/ref.py --N=1000000
"""
import torch
import triton
import triton.language as tl

DEVICE = "cuda"  # where setup() allocates (a test may point it elsewhere)
BLOCK = 1024


@triton.jit
def add_kernel_masked_bug(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = (offs >= 0) & ((pid + 1) * BLOCK <= n)  # BUG: should be offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def setup(N, seed=0, **kwargs):
    """Inputs x, y ~ normal(0, 1) and the output out, each N float32 values."""
    N = int(N)
    if N <= 0:
        raise ValueError(f"--N must be positive, got {N}")
    g = torch.Generator(device=DEVICE).manual_seed(int(seed))
    x = torch.randn(N, generator=g, device=DEVICE, dtype=torch.float32)
    y = torch.randn(N, generator=g, device=DEVICE, dtype=torch.float32)
    out = torch.empty(N, device=DEVICE, dtype=torch.float32)
    return {"inputs": {"x": x, "y": y, "out": out, "N": N}, "outputs": ["out"]}


def run_kernel(x, y, out, N, **kwargs):
    """Launches the buggy kernel on the current stream; does not synchronize."""
    add_kernel_masked_bug[(triton.cdiv(N, BLOCK),)](x, y, out, N, BLOCK=BLOCK)
