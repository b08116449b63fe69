"""BROKEN ON PURPOSE: setup() returns the wrong structure (kprof check must exit 2 naming
setup and the missing key).

The kernel is a correct Triton vector add, but setup() lists an output "result" that is not a
key of its inputs dict (the tensor is called "out"), so kprof cannot know what to compare.
Run: kprof check examples/triton/bad_setup/bad_setup.py --ref examples/triton/vector_add/ref.py --N=4096
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
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def setup(N, seed=0, **kwargs):
    N = int(N)
    g = torch.Generator(device=DEVICE).manual_seed(int(seed))
    x = torch.randn(N, generator=g, device=DEVICE, dtype=torch.float32)
    y = torch.randn(N, generator=g, device=DEVICE, dtype=torch.float32)
    out = torch.empty(N, device=DEVICE, dtype=torch.float32)
    return {"inputs": {"x": x, "y": y, "out": out, "N": N}, "outputs": ["result"]}  # BUG: no "result"


def run_kernel(x, y, out, N, **kwargs):
    add_kernel[(triton.cdiv(N, BLOCK),)](x, y, out, N, BLOCK=BLOCK)
