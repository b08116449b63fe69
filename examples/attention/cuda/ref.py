"""Reference for every CUDA attention version (v0.cu .. v5.cu):
solve(const float* Q, const float* K, const float* V, float* output, int N, int d_model, int heads).

Q, K, V and output are N x d_model row-major, arriving as flat 1-D float32 CUDA tensors (run
kprof with --size Q=N*d_model --size K=N*d_model --size V=N*d_model --size output=N*d_model).
Head h uses the columns [h * dk, h * dk + dk), dk = d_model / heads; each head's output is
softmax(Q_h K_h^T / sqrt(dk)) V_h, written to the same columns.
Computed in float64 and rounded once to float32, so the comparison measures the kernel's own
rounding. No atol / rtol here: kprof's float32 defaults (atol 1e-4, rtol 1e-3) hold. The outputs
are softmax-weighted means of normal(0, 1) values (mostly |out| < 0.5); a float32 kernel that
sums the 2048 weighted terms in another order errs by under 1e-6 (4e-7 at most in a CPU emulation
of v1, which sums in the plainest order, at N = 2048), far inside atol.
"""
import math

import torch


def reference(Q, K, V, output, N, d_model, heads):
    dk = d_model // heads
    q, k, v = (t.view(N, heads, dk).transpose(0, 1).double() for t in (Q, K, V))  # (heads, N, dk)
    p = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(dk), dim=-1)
    output.copy_((p @ v).transpose(0, 1).reshape(-1).float())


def flops(N, d_model, heads, **kwargs):
    """FLOPs of the algorithm for kprof's time bound: Q K^T and P V, 2 N^2 d_model each (an FMA
    counts 2); the softmax's exponentials and divisions are left out."""
    return 4 * N * N * d_model
