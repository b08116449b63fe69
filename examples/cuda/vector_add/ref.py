"""Reference for solve(const float* A, const float* B, float* C, int N): C = A + B.

kprof passes A, B, C as flat float32 CUDA tensors of N elements (C holds its pre-call contents)
and N as an int. The sum is exact in float32 up to rounding of one add, so tight tolerances.
"""

atol = 1e-6
rtol = 1e-6


def reference(A, B, C, N, **kwargs):
    C[:N].copy_(A[:N] + B[:N])
