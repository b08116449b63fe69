"""Triton attention, version 3 (flash-style, autotuned): version 2's kernel with the tile sizes,
num_warps and num_stages chosen by @triton.autotune, and exp2 in place of exp.

out = softmax(Q K^T / sqrt(D)) V for each (batch, head). Q, K, V and output are (B, H, N, D)
float32, contiguous. Same algorithm as v2 (tl.dot with input_precision="ieee": true float32
products, see v2); the query block is pre-scaled by log2(e) / sqrt(D) so that exp(x) becomes
exp2(x). The autotuner tries the CONFIGS below on the first call for each (N, D) and keeps the
fastest (kprof's warm-up absorbs it). Every config writes the whole output, so the autotuning
calls leave it correct. Any B, H, N; D up to 128.
Run: kprof check examples/attention/triton/v3.py --ref examples/attention/triton/ref.py --B=2 --H=8 --N=1024 --D=64
"""
import math

import torch
import triton
import triton.language as tl

MAX_D = 128
LOG2E = 1.4426950408889634
# Tiles and warps that compile without register spills at D = 64 (and, but for 36 bytes of the
# 128 x 32 tile, at D = 128) with Triton 3.6 for sm_90: the FMA-based float32 tl.dot keeps whole
# operand slices in registers, so 64 x 64 with 4 warps, for example, spills.
CONFIGS = [
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 32}, num_warps=8, num_stages=2),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 32}, num_warps=8, num_stages=3),
    triton.Config({"BLOCK_M": 32, "BLOCK_N": 64}, num_warps=8, num_stages=2),
    triton.Config({"BLOCK_M": 32, "BLOCK_N": 32}, num_warps=4, num_stages=3),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 32}, num_warps=16, num_stages=2),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 64}, num_warps=16, num_stages=2),
]


@triton.autotune(configs=CONFIGS, key=["N", "D"])
@triton.jit
def attention_v3(q_ptr, k_ptr, v_ptr, o_ptr, N, D, qk_scale, stride_bh, stride_n,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    base = tl.program_id(1).to(tl.int64) * stride_bh
    d = tl.arange(0, BLOCK_D)
    dmask = d < D
    q = tl.load(q_ptr + base + rows[:, None] * stride_n + d[None, :],
                mask=(rows[:, None] < N) & dmask[None, :], other=0.0) * qk_scale
    m = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], tl.float32)
    for start in range(0, N, BLOCK_N):
        n = start + tl.arange(0, BLOCK_N)
        nmask = n < N
        kt = tl.load(k_ptr + base + n[None, :] * stride_n + d[:, None], mask=nmask[None, :] & dmask[:, None], other=0.0)
        s = tl.dot(q, kt, input_precision="ieee")  # in log2 units
        s = tl.where(nmask[None, :], s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, axis=1))
        alpha = tl.exp2(m - m_new)
        p = tl.exp2(s - m_new[:, None])
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
    """Autotuned on the first call per (N, D); does not synchronize."""
    grid = lambda meta: (triton.cdiv(N, meta["BLOCK_M"]), B * H)
    attention_v3[grid](Q, K, V, output, N, D, LOG2E / math.sqrt(D), Q.stride(1), Q.stride(2),
                       BLOCK_D=max(16, triton.next_power_of_2(D)))
