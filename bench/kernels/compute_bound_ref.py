"""Reference for bench/kernels/compute_bound.cu: x <- fmaf(x, a, b) applied 4096 times.

Closed form in float64 with the kernel's float32 constants: x_n = p + a^n (x_0 - p), with the
fixed point p = b / (1 - a) (~1.0000129). The kernel rounds once per step; those errors are
damped by a per step, so near the end (x ~ 1) they add up to at most half an ulp / (1 - a)
~ 6e-5 (the worst case: an element that starts within ~4e-3 of p and stalls where one step is
below half an ulp; measured 5.6e-5 on a CPU emulation of the kernel's FMA chain), plus < 2e-5
left from the early steps of large |x_0| (bigger ulps, damped by a^(n-k)). Typical errors are
~1e-6. Hence atol 2e-4.
"""
import torch

atol = 2e-4
rtol = 1e-5

ITERS = 4096
A = float(torch.tensor(0.999, dtype=torch.float32))  # the kernel's float32 constants, exactly
B = float(torch.tensor(0.001, dtype=torch.float32))


def reference(x, y, N, **kwargs):
    p = B / (1.0 - A)
    y[:N].copy_(p + (A ** ITERS) * (x[:N].double() - p))


def flops(N, **kwargs):
    """FLOPs of the algorithm, for kprof's time bound: 4096 FMAs (2 FLOP each) per element."""
    return 2 * ITERS * N
