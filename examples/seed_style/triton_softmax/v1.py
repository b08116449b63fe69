"""Triton row softmax, version 1: online softmax over column chunks, any row length.

input and output are (N, D) float32, row-major. One program per row walks the row in chunks of
CHUNK = 256 columns. Pass 1 keeps, per lane, a running max m and a running sum s of exp(x - m)
("online softmax": when a lane's max grows, its sum is rescaled by exp(m_old - m_new)); the
lanes are then combined into the row's max and sum. Pass 2 reads the row again (mostly from
L1/L2) and writes exp(x - max) / sum. Registers no longer grow with D, so D is not limited, at
the price of reading the input twice.
Run: kprof check examples/seed_style/triton_softmax/v1.py --ref examples/seed_style/triton_softmax/ref.py --N=32768 --D=1024
"""
import torch
import triton
import triton.language as tl

CHUNK = 256


@triton.jit
def softmax_v1(in_ptr, out_ptr, D, stride_in, stride_out, CHUNK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    in_row = in_ptr + row * stride_in
    out_row = out_ptr + row * stride_out
    offs = tl.arange(0, CHUNK)
    m = tl.full((CHUNK,), -float("inf"), tl.float32)
    s = tl.zeros((CHUNK,), tl.float32)
    for c0 in range(0, D, CHUNK):
        cols = c0 + offs
        x = tl.load(in_row + cols, mask=cols < D, other=-float("inf"))
        m_new = tl.maximum(m, x)
        # A lane that has seen only masked (-inf) values keeps s = 0; avoid exp(-inf - -inf) = NaN.
        alpha = tl.where(m_new == -float("inf"), 0.0, tl.exp(m - m_new))
        s = s * alpha + tl.where(m_new == -float("inf"), 0.0, tl.exp(x - m_new))
        m = m_new
    row_max = tl.max(m, axis=0)
    row_sum = tl.sum(tl.where(m == -float("inf"), 0.0, s * tl.exp(m - row_max)), axis=0)
    inv = 1.0 / row_sum
    for c0 in range(0, D, CHUNK):
        cols = c0 + offs
        x = tl.load(in_row + cols, mask=cols < D, other=-float("inf"))
        tl.store(out_row + cols, tl.exp(x - row_max) * inv, mask=cols < D)


def setup(N, D, seed=0, **kwargs):
    """input ~ normal(0, 1), shape (N, D), and an empty output of the same shape; float32."""
    N, D = int(N), int(D)
    if N <= 0 or D <= 0:
        raise ValueError(f"need N > 0 and D > 0, got N={N} D={D}")
    g = torch.Generator(device="cuda").manual_seed(int(seed))
    input = torch.randn((N, D), generator=g, device="cuda", dtype=torch.float32)
    output = torch.empty((N, D), device="cuda", dtype=torch.float32)
    return {"inputs": {"input": input, "output": output, "N": N, "D": D}, "outputs": ["output"]}


def run_kernel(input, output, N, D, **kwargs):
    """One program per row, 4 warps; does not synchronize."""
    softmax_v1[(N,)](input, output, D, input.stride(0), output.stride(0), CHUNK=CHUNK, num_warps=4)
