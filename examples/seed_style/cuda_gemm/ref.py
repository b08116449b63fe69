"""Reference for every version of solve(float* A, float* B, float* C, int M, int K, int N)
(v0.cu .. v2.cu): C[M, N] = A[M, K] @ B[K, N], row-major, as the original workflow's users
write it.

Every buffer of a solve() kernel arrives as a flat 1-D float32 CUDA tensor (run kprof with
--size A=M*K --size B=K*N --size C=M*N), so the reference reshapes the inputs and writes C flat.
All three pointers are non-const; the reference changes only C, and so must the kernel.

torch.mm is a float32 GEMM here (PyTorch's default, no TF32). Two float32 GEMMs summing K
products in different orders differ by ~4e-5 RMS (under 1e-3 everywhere) at K = 2048 with
normal(0, 1) inputs, independently of |C|: an element near zero would fail the float32 default
atol = 1e-4 by rounding alone, so atol is 1e-3 (rtol keeps its default, 1e-3). A skipped tile,
a missed K step or TF32 rounding (~0.01 RMS) still fails.
"""
import torch

atol = 1e-3


def reference(A, B, C, M, K, N):
    C.copy_(torch.mm(A.view(M, K), B.view(K, N)).view(-1))
