"""Triton attention, version 2 (flash-style): BLOCK_M query rows per program, tl.dot for the
scores and for the weighted sum of V, online softmax.

out = softmax(Q K^T / sqrt(D)) V for each (batch, head). Q, K, V and output are (B, H, N, D)
float32, contiguous. Program (query block, b * H + h), 8 warps, loads its 64 query rows once and
walks the keys in blocks of 32: scores = tl.dot(q, k^T), the running row maximum and sum (online
softmax), then acc = acc * alpha + tl.dot(p, v). Each K and V block is read once per 64 query
rows instead of once per row (v1). 64 x 32 with 8 warps compiles without register spills at
D = 64 and 128 (Triton 3.6, sm_90); 64 x 64 with 4 warps spills. Both tl.dot calls use
input_precision="ieee": true float32 products on the FMA units, because Triton's default on
Hopper is TF32 on the tensor cores (10-bit mantissas: about 2e-5 RMS and up to 3e-4 here in a
NumPy simulation, a few elements outside the float32 tolerance). Any B, H, N; D up to 128
(padded to a power of two, at least 16, for tl.dot; above 128 ptxas spills nearly everything).
Run: kprof check examples/attention/triton/v2.py --ref examples/attention/triton/ref.py --B=2 --H=8 --N=1024 --D=64
"""
import math

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N = 64, 32
MAX_D = 128


@triton.jit
def attention_v2(q_ptr, k_ptr, v_ptr, o_ptr, N, D, scale, stride_bh, stride_n,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    base = tl.program_id(1).to(tl.int64) * stride_bh
    d = tl.arange(0, BLOCK_D)
    dmask = d < D
    q = tl.load(q_ptr + base + rows[:, None] * stride_n + d[None, :],
                mask=(rows[:, None] < N) & dmask[None, :], other=0.0) * scale
    m = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], tl.float32)
    for start in range(0, N, BLOCK_N):
        n = start + tl.arange(0, BLOCK_N)
        nmask = n < N
        kt = tl.load(k_ptr + base + n[None, :] * stride_n + d[:, None], mask=nmask[None, :] & dmask[:, None], other=0.0)
        s = tl.dot(q, kt, input_precision="ieee")
        s = tl.where(nmask[None, :], s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, axis=1))  # finite: key `start` < N exists
        alpha = tl.exp(m - m_new)
        p = tl.exp(s - m_new[:, None])
        l = l * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + base + n[:, None] * stride_n + d[None, :], mask=nmask[:, None] & dmask[None, :], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")
        m = m_new
    out = acc / l[:, None]
    tl.store(o_ptr + base + rows[:, None] * stride_n + d[None, :], out, mask=(rows[:, None] < N) & dmask[None, :])


def setup(B, H, N, D, seed=0, **kwargs):
    """Q, K, V ~ normal(0, 1) and an empty output, all (B, H, N, D) float32."""
    B, H, N, D = int(B), int(H), int(N), int(D)
    if min(B, H, N, D) <= 0 or D > MAX_D:
        raise ValueError(f"need B, H, N, D > 0 and D <= {MAX_D}, got B={B} H={H} N={N} D={D}")
    g = torch.Generator(device="cuda").manual_seed(int(seed))
    Q, K, V = (torch.randn((B, H, N, D), generator=g, device="cuda", dtype=torch.float32) for _ in range(3))
    output = torch.empty((B, H, N, D), device="cuda", dtype=torch.float32)
    return {"inputs": {"Q": Q, "K": K, "V": V, "output": output, "B": B, "H": H, "N": N, "D": D},
            "outputs": ["output"]}


def run_kernel(Q, K, V, output, B, H, N, D, **kwargs):
    """Grid (cdiv(N, 64), B * H); does not synchronize."""
    grid = (triton.cdiv(N, BLOCK_M), B * H)
    attention_v2[grid](Q, K, V, output, N, D, 1.0 / math.sqrt(D), Q.stride(1), Q.stride(2),
                       BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_D=max(16, triton.next_power_of_2(D)),
                       num_warps=8, num_stages=2)
