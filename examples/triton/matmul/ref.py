"""Reference for examples/triton/matmul/matmul.py: c = a @ b.

a, b are float16; the reference multiplies them in float64 (exact products, near-exact sums)
and returns float32. The kernel multiplies the same float16 values exactly and accumulates in
float32 on tensor cores, whose accumulation rounds at each step: with normal(0, 1) inputs
|c| ~ sqrt(K) and the sum of |terms| ~ 0.64 K, so even for K = 8192 the error stays near 1e-3.
atol 1e-2 + rtol 1e-3 leaves a wide margin, while a wrong tile, a missed K step or an edge
mask bug changes elements by ~1 (one product) or more and is caught.
"""

atol = 1e-2
rtol = 1e-3


def reference(a, b, c, M, N, K, **kwargs):
    return (a.double() @ b.double()).to(c.dtype)
