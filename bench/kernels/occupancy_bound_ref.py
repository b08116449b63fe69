"""Reference for bench/kernels/occupancy_bound.cu: y = 2 * x + 1.

2 * x is exact, so the kernel's fmaf(x, 2, 1) and this float32 expression round the same value
once: identical results.
"""

atol = 1e-6
rtol = 1e-6


def reference(x, y, N, **kwargs):
    y[:N].copy_(x[:N] * 2.0 + 1.0)
