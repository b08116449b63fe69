"""Reference for every Triton attention version (v0.py .. v3.py): out = softmax(Q K^T / sqrt(D)) V
per (batch, head), written the way the original kernel-profile workflow's users write it: the
output is filled as a FLAT buffer.

setup() returns Q, K, V and output of shape (B, H, N, D). Like the original scripts, kprof hands
every output with more than one dimension to reference as a flat 1-D view of its storage, while
inputs keep their shapes: Q, K, V arrive as (B, H, N, D), output as (B * H * N * D,).
Computed in float64 and rounded once to float32, so the comparison measures the kernel's own
rounding. No atol / rtol here: kprof's float32 defaults (atol 1e-4, rtol 1e-3) hold. The outputs
are softmax-weighted means of normal(0, 1) values, mostly |out| < 0.5; a float32 kernel that sums
the 1024 weighted terms in another order errs by under 1e-6 (7e-7 at most in Triton's interpreter),
while TF32 products (10-bit mantissas) err by about 2e-5 RMS and up to 3e-4 (a NumPy simulation at
H = 4, N = 1024, D = 64): a few elements in a million fall outside the tolerance, so a TF32
kernel fails, narrowly.
"""
import math

import torch


def reference(Q, K, V, output, B, H, N, D):
    q, k, v = Q.double(), K.double(), V.double()
    p = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(D), dim=-1)
    output.copy_((p @ v).float().reshape(-1))


def flops(B, H, N, D, **kwargs):
    """FLOPs of the algorithm for kprof's time bound: Q K^T and P V, 2 N^2 D each per (batch, head)
    (an FMA counts 2); the softmax's exponentials and divisions are left out."""
    return 4 * B * H * N * N * D
