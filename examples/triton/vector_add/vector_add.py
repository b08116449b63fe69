"""Triton vector add: out = x + y over N float32 elements.

Launch: ceil(N / BLOCK) programs of BLOCK = 1024 elements each; the last one masks its tail, so
any N works. kprof contract: setup(N, seed) builds the inputs, run_kernel(**inputs) launches.
Run: kprof check examples/triton/vector_add/vector_add.py --ref examples/triton/vector_add/ref.py --N=1000003
"""
import torch
import triton
import triton.language as tl

DEVICE = "cuda"  # where setup() allocates (a test may point it elsewhere)
BLOCK = 1024


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
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
    """Launches add_kernel on the current stream; does not synchronize."""
    add_kernel[(triton.cdiv(N, BLOCK),)](x, y, out, N, BLOCK=BLOCK)
