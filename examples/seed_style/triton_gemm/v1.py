"""Triton float32 GEMM, version 1: grouped ("swizzled") tile order, larger tiles, pipelining.

C (M, N) = A (M, K) @ B (K, N), all float32, input_precision="ieee" (FMA units, float32
accuracy). A 1-D grid over the 128 x 128 output tiles, visited in groups of GROUP_M = 8 tile
rows: consecutive programs share the same few B tile columns and A tile rows, so they hit in
L2 instead of each streaming its own. BLOCK_K = 16 with num_stages = 3 software pipelining
(the next tiles' loads overlap the current FMAs). Masked at every edge: any sizes work.
Run: kprof check examples/seed_style/triton_gemm/v1.py --ref examples/seed_style/triton_gemm/ref.py --M=2048 --K=2048 --N=2048
"""
import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M = 128, 128, 16, 8
PRECISION = "ieee"  # gemm_tf32.py runs this kernel with "tf32"


@triton.jit
def gemm_v1(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
            PRECISION: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    group_size = GROUP_M * num_pid_n
    first_m = (pid // group_size) * GROUP_M
    group_m = min(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % group_size) % group_m
    pid_n = (pid % group_size) // group_m

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + offs_k
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + ks[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                    mask=(ks[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
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


def run_kernel(A, B, C, M, N, K, precision=PRECISION, **kwargs):
    """1-D grid over the tiles, grouped order, tl.dot's input_precision `precision`; does not
    synchronize."""
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N),)
    gemm_v1[grid](A, B, C, M, N, K, A.stride(0), A.stride(1), B.stride(0), B.stride(1), C.stride(0), C.stride(1),
                  BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=GROUP_M, PRECISION=precision,
                  num_warps=8, num_stages=3)
