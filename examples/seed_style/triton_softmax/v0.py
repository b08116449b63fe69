"""Triton row softmax, version 0 (naive): one program per row, the whole row in one block.

input and output are (N, D) float32, row-major. Program i loads row i as one block of
BLOCK = next_power_of_2(D) columns (masked lanes read -inf, which exp turns into 0), subtracts
the row max, exponentiates, divides by the sum and stores. num_warps is fixed at 4, so for wide
rows each thread holds BLOCK / 128 values (D = 8192: 64 registers of row data per thread).
Run: kprof check examples/seed_style/triton_softmax/v0.py --ref examples/seed_style/triton_softmax/ref.py --N=32768 --D=1024
"""
import torch
import triton
import triton.language as tl

MAX_D = 16384  # one row must fit in the registers of one program


@triton.jit
def softmax_v0(in_ptr, out_ptr, D, stride_in, stride_out, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)  # 64-bit offsets: N * D may exceed 2^31
    cols = tl.arange(0, BLOCK)
    mask = cols < D
    x = tl.load(in_ptr + row * stride_in + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * stride_out + cols, e / tl.sum(e, axis=0), mask=mask)


def setup(N, D, seed=0, **kwargs):
    """input ~ normal(0, 1), shape (N, D), and an empty output of the same shape; float32."""
    N, D = int(N), int(D)
    if N <= 0 or D <= 0 or D > MAX_D:
        raise ValueError(f"need N > 0 and 0 < D <= {MAX_D}, got N={N} D={D}")
    g = torch.Generator(device="cuda").manual_seed(int(seed))
    input = torch.randn((N, D), generator=g, device="cuda", dtype=torch.float32)
    output = torch.empty((N, D), device="cuda", dtype=torch.float32)
    return {"inputs": {"input": input, "output": output, "N": N, "D": D}, "outputs": ["output"]}


def run_kernel(input, output, N, D, **kwargs):
    """One program per row; does not synchronize."""
    softmax_v0[(N,)](input, output, D, input.stride(0), output.stride(0),
                     BLOCK=triton.next_power_of_2(D), num_warps=4)
