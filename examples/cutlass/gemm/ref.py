"""Reference for examples/cutlass/gemm/gemm.cu:
solve(const half* A, const half* B, float* C, int M, int N, int K), C = A @ B, row-major.

A (M*K) and B (K*N) arrive as flat float16 CUDA tensors, C (M*N) as float32 (run kprof with
--size A=M*K --size B=K*N --size C=M*N). The reference is torch.matmul in float64: the products
of float16 values are exact, so it differs from the kernel only by the kernel's float32
accumulation order on tensor cores.

Tolerances for this dtype combination (fp16 in, fp32 accumulate, fp32 out): with normal(0, 1)
inputs |C| ~ sqrt(K); each of the K float32 additions rounds by ~2^-24 of a partial sum of size
~sqrt(K), so the error is typically ~6e-8 * K (~2.5e-4 at K = 4096): atol 1e-2 and rtol 1e-3
hold with a wide margin, while a wrong tile, a skipped K block or a transposed operand is off
by ~1 or more. (An fp16 OUTPUT would need rtol ~2e-3 for
its own rounding, 2^-11; a bf16 output rtol ~1.6e-2, 2^-8 * 4.)
"""
import torch

atol = 1e-2
rtol = 1e-3


def reference(A, B, C, M, N, K, **kwargs):
    a = A[: M * K].view(M, K).double()
    b = B[: K * N].view(K, N).double()
    return torch.matmul(a, b).to(torch.float32).reshape(-1)


def flops(M, N, K, **kwargs):
    """FLOPs of C = A @ B (an FMA counts 2), for kprof's time bound."""
    return 2 * M * N * K


def bytes_moved(M, N, K, **kwargs):
    """The least traffic: A and B (fp16) read once, C (fp32) written once."""
    return 2 * M * K + 2 * K * N + 4 * M * N
