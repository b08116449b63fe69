"""Reference for solve(const float* A, const float* B, float* C, int M, int K, int N).

C[M, N] = A[M, K] @ B[K, N], all row-major, flat float32 CUDA tensors (run kprof with
--size A=M*K --size B=K*N --size C=M*N). Computed in float64 (so TF32 settings cannot matter),
stored into C as float32. With normal(0, 1) inputs |C| ~ sqrt(K); a K-term float32 dot product
in a different summation order differs by ~sqrt(K) * 6e-8 * |C|, well inside the tolerances.
"""
import torch

atol = 1e-3
rtol = 1e-3


def reference(A, B, C, M, K, N, **kwargs):
    a = A[: M * K].view(M, K).double()
    b = B[: K * N].view(K, N).double()
    C[: M * N].copy_((a @ b).reshape(-1))
