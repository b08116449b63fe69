"""Reference for bench/kernels/torch_matmul.py: C = A @ B in float32 from the fp16 inputs.

The kernel accumulates in fp32 on tensor cores and rounds C to fp16 (relative 2^-11): with
normal(0, 1) inputs |C| ~ sqrt(K) (~90 at K = 8192), so rtol 2e-3 covers the output rounding and
atol 0.1 the values near zero, where the accumulation order matters most.
"""
import torch

atol = 1e-1
rtol = 2e-3


def reference(a, b, c, **kwargs):
    return torch.matmul(a.float(), b.float())


def flops(M, N, K, **kwargs):
    """FLOPs of the GEMM (an FMA counts 2), for kprof's time bound."""
    return 2 * M * N * K


def bytes_moved(M, N, K, **kwargs):
    """A, B read once and C written once, all fp16."""
    return 2 * (M * K + K * N + M * N)
