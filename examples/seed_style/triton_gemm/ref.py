"""Reference for the Triton float32 GEMM (v0.py .. v2.py, and gemm_tf32.py, which must fail),
written the way the original kernel-profile workflow's users write it: C filled as a FLAT buffer.

setup() returns A (M, K), B (K, N) and C (M, N). Like the original scripts, kprof hands every
output with more than one dimension to reference as a flat 1-D view of its storage, while
inputs keep their shapes: A and B arrive as matrices, C as (M * N,).

torch.mm here is a float32 GEMM (PyTorch's default: torch.backends.cuda.matmul.allow_tf32 is
False; kprof records the setting). Two float32 GEMMs that sum K products in different orders
differ by an amount that grows with K but not with |C|: ~7e-5 RMS, ~1e-3 at worst, at
K = 4096 with normal(0, 1) inputs. An element near zero would fail the float32 default
atol = 1e-4 by rounding alone, so atol is 1e-3 (rtol keeps its default, 1e-3). A TF32 GEMM
errs by ~0.02 RMS at K = 4096 and still fails, as does a wrong tile or a missed K step.
"""
import torch

atol = 1e-3


def reference(A, B, C, M, N, K):
    C.copy_(torch.mm(A, B).view(-1))
