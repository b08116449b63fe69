"""Triton float32 GEMM, version 0 (naive tiles): C (M, N) = A (M, K) @ B (K, N).

A 2-D grid of BLOCK_M x BLOCK_N = 64 x 64 output tiles in row-major order (program (i, j)
computes tile (i, j)); each walks K in BLOCK_K = 32 steps, loading a 64 x 32 tile of A and a
32 x 64 tile of B. tl.dot runs with input_precision="ieee": true float32 products on the FMA
units (Triton's default on Hopper would be TF32 tensor cores, see gemm_tf32.py), so the result
meets float32 tolerances. Loads are masked at the M, N and K edges: any sizes work.
Run: kprof check examples/seed_style/triton_gemm/v0.py --ref examples/seed_style/triton_gemm/ref.py --M=2048 --K=2048 --N=2048
"""
import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32


@triton.jit
def gemm_v0(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + offs_k
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + ks[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                    mask=(ks[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def setup(M, N, K, seed=0, **kwargs):
    """A (M, K) and B (K, N) ~ normal(0, 1), C (M, N) empty; all float32."""
    M, N, K = int(M), int(N), int(K)
    if min(M, N, K) <= 0:
        raise ValueError(f"--M, --N and --K must be positive, got M={M} N={N} K={K}")
    g = torch.Generator(device="cuda").manual_seed(int(seed))
    A = torch.randn((M, K), generator=g, device="cuda", dtype=torch.float32)
    B = torch.randn((K, N), generator=g, device="cuda", dtype=torch.float32)
    C = torch.empty((M, N), device="cuda", dtype=torch.float32)
    return {"inputs": {"A": A, "B": B, "C": C, "M": M, "N": N, "K": K}, "outputs": ["C"]}


def run_kernel(A, B, C, M, N, K, **kwargs):
    """2-D grid of 64 x 64 tiles; does not synchronize."""
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    gemm_v0[grid](A, B, C, M, N, K, A.stride(0), A.stride(1), B.stride(0), B.stride(1), C.stride(0), C.stride(1),
                  BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=4)
