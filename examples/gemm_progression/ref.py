"""Reference for every version of the SGEMM progression (v0_naive.cu .. v5_vectorized.cu):
solve(const float* A, const float* B, float* C, int M, int K, int N), C[M, N] = A[M, K] @ B[K, N],
float32, row-major.

Every buffer of a solve() kernel arrives as a flat 1-D float32 CUDA tensor (run kprof with
--size A=M*K --size B=K*N --size C=M*N), so the reference reshapes the inputs and writes C flat.

The kernels are plain float32 FFMA (no tensor cores, no TF32), so the reference must be too:
allow_tf32 is set to False explicitly here rather than trusting PyTorch's default, since a TF32
reference (~0.01 RMS error at K = 4096) would fail correct kernels. Two float32 GEMMs summing the
K products in different orders differ by ~4e-5 RMS at K = 2048 and ~7e-5 at K = 4096 with
normal(0, 1) inputs, independently of |C|: an element of C near zero would fail the float32
default atol = 1e-4 by rounding alone, so atol is 1e-3 (rtol keeps its default, 1e-3); see
examples/seed_style/README.md. A skipped tile, a missed K step or TF32 rounding still fails.

There is deliberately NO flops() function: kprof must count the reference's floating-point work
itself (2 * M * N * K for this torch.mm) for the roofline and the FLOP/s of each version.
"""
import torch

torch.backends.cuda.matmul.allow_tf32 = False

atol = 1e-3


def reference(A, B, C, M, K, N):
    C.copy_(torch.mm(A.view(M, K), B.view(K, N)).view(-1))
