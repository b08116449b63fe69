"""BROKEN ON PURPOSE: a Triton row softmax with a wrong tail (kprof check must fail).

input and output are (N, D) float32, as in ../triton_softmax/. Two mistakes that hide each
other when D is a power of two: the row max is not subtracted (harmless for normal(0, 1)
inputs, exp does not overflow), and the masked lanes past D are loaded as 0.0 instead of
-inf, so each contributes exp(0) = 1 to the row sum. At D = 1024 (BLOCK = D, no masked lane)
the result is right; at D = 1000 every row's sum has 24 extra ones (~1.5% too large) and every
element is ~1.5% too small: far outside ref.py's rtol 1e-4.
Pass: kprof check examples/seed_style/broken/triton_softmax_tail.py --ref examples/seed_style/triton_softmax/ref.py --N=4096 --D=1024
Fail: kprof check examples/seed_style/broken/triton_softmax_tail.py --ref examples/seed_style/triton_softmax/ref.py --N=4096 --D=1000
"""
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_tail_bug(in_ptr, out_ptr, D, stride_in, stride_out, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < D
    x = tl.load(in_ptr + row * stride_in + cols, mask=mask, other=0.0)  # BUG: other=-inf
    e = tl.exp(x)  # BUG: no max subtraction (masked lanes give exp(0) = 1)
    tl.store(out_ptr + row * stride_out + cols, e / tl.sum(e, axis=0), mask=mask)


def setup(N, D, seed=0, **kwargs):
    """input ~ normal(0, 1), shape (N, D), and an empty output of the same shape; float32."""
    N, D = int(N), int(D)
    g = torch.Generator(device="cuda").manual_seed(int(seed))
    input = torch.randn((N, D), generator=g, device="cuda", dtype=torch.float32)
    output = torch.empty((N, D), device="cuda", dtype=torch.float32)
    return {"inputs": {"input": input, "output": output, "N": N, "D": D}, "outputs": ["output"]}


def run_kernel(input, output, N, D, **kwargs):
    softmax_tail_bug[(N,)](input, output, D, input.stride(0), output.stride(0),
                           BLOCK=triton.next_power_of_2(D), num_warps=4)
