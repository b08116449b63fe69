"""Triton row softmax over an N x D float32 matrix (numerically stable: row max subtracted).

Launch: one program per row (grid = N); each loads its whole row as one block of
BLOCK = next_power_of_2(D) columns (masked beyond D with -inf, which exp turns into 0), so any
D up to 65536 works; num_warps grows with the block. Tensors are 2-D (N, D), contiguous.
Run: kprof check examples/triton/softmax/softmax.py --ref examples/triton/softmax/ref.py --N=4096 --D=1000
"""
import torch
import triton
import triton.language as tl

DEVICE = "cuda"  # where setup() allocates (a test may point it elsewhere)
MAX_D = 65536    # one row must fit in registers of one program


@triton.jit
def softmax_kernel(x_ptr, out_ptr, D, stride_x, stride_out, BLOCK: tl.constexpr):
    row = tl.program_id(axis=0).to(tl.int64)  # 64-bit row offsets: N * D may exceed 2^31
    cols = tl.arange(0, BLOCK)
    mask = cols < D
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    y = e / tl.sum(e, axis=0)
    tl.store(out_ptr + row * stride_out + cols, y, mask=mask)


def setup(N, D, seed=0, **kwargs):
    """Input x ~ normal(0, 1) of shape (N, D) and the output out of the same shape, float32."""
    N, D = int(N), int(D)
    if N <= 0 or D <= 0 or D > MAX_D:
        raise ValueError(f"need N > 0 and 0 < D <= {MAX_D}, got N={N} D={D}")
    g = torch.Generator(device=DEVICE).manual_seed(int(seed))
    x = torch.randn(N, D, generator=g, device=DEVICE, dtype=torch.float32)
    out = torch.empty(N, D, device=DEVICE, dtype=torch.float32)
    return {"inputs": {"x": x, "out": out, "N": N, "D": D}, "outputs": ["out"]}


def run_kernel(x, out, N, D, **kwargs):
    """Launches softmax_kernel on the current stream; does not synchronize."""
    block = triton.next_power_of_2(D)
    num_warps = 4 if block <= 2048 else (8 if block <= 8192 else 16)
    softmax_kernel[(N,)](x, out, D, x.stride(0), out.stride(0), BLOCK=block, num_warps=num_warps)
