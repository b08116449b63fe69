"""Triton attention, version 0 (naive): one program per query row, three passes over the keys.

out = softmax(Q K^T / sqrt(D)) V for each (batch, head). Q, K, V and output are (B, H, N, D)
float32, contiguous. Program (row, b * H + h) holds its query row (BLOCK_D = next power of two
>= D, masked) and walks the keys in blocks of BLOCK_N = 64 three times: the row maximum of the
scores, the sum of exp(score - max), then the weighted sum of the V rows. Every pass recomputes
the scores with an elementwise product and a row sum (no tl.dot), and every pass reads K again
from L2: 4 reads of K or V per query row. Any B, H, N; D up to 128.
Run: kprof check examples/attention/triton/v0.py --ref examples/attention/triton/ref.py --B=2 --H=8 --N=1024 --D=64
"""
import math

import torch
import triton
import triton.language as tl

BLOCK_N = 64
MAX_D = 128


@triton.jit
def attention_v0(q_ptr, k_ptr, v_ptr, o_ptr, N, D, scale, stride_bh, stride_n,
                 BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    row = tl.program_id(0)
    base = tl.program_id(1).to(tl.int64) * stride_bh
    d = tl.arange(0, BLOCK_D)
    dmask = d < D
    q = tl.load(q_ptr + base + row * stride_n + d, mask=dmask, other=0.0)
    m = tl.max(tl.full([BLOCK_N], float("-inf"), tl.float32), axis=0)
    for start in range(0, N, BLOCK_N):  # pass 1: the largest score
        n = start + tl.arange(0, BLOCK_N)
        nmask = n < N
        k = tl.load(k_ptr + base + n[:, None] * stride_n + d[None, :], mask=nmask[:, None] & dmask[None, :], other=0.0)
        s = tl.where(nmask, tl.sum(k * q[None, :], axis=1) * scale, float("-inf"))
        m = tl.maximum(m, tl.max(s, axis=0))
    l = tl.sum(tl.zeros([BLOCK_N], tl.float32), axis=0)
    for start in range(0, N, BLOCK_N):  # pass 2: the softmax denominator
        n = start + tl.arange(0, BLOCK_N)
        nmask = n < N
        k = tl.load(k_ptr + base + n[:, None] * stride_n + d[None, :], mask=nmask[:, None] & dmask[None, :], other=0.0)
        s = tl.where(nmask, tl.sum(k * q[None, :], axis=1) * scale, float("-inf"))
        l += tl.sum(tl.exp(s - m), axis=0)
    acc = tl.zeros([BLOCK_D], tl.float32)
    for start in range(0, N, BLOCK_N):  # pass 3: the weighted sum of V
        n = start + tl.arange(0, BLOCK_N)
        nmask = n < N
        kv_mask = nmask[:, None] & dmask[None, :]
        k = tl.load(k_ptr + base + n[:, None] * stride_n + d[None, :], mask=kv_mask, other=0.0)
        s = tl.where(nmask, tl.sum(k * q[None, :], axis=1) * scale, float("-inf"))
        p = tl.exp(s - m)
        v = tl.load(v_ptr + base + n[:, None] * stride_n + d[None, :], mask=kv_mask, other=0.0)
        acc += tl.sum(p[:, None] * v, axis=0)
    tl.store(o_ptr + base + row * stride_n + d, acc / l, mask=dmask)


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
    """Grid (N, B * H); does not synchronize."""
    attention_v0[(N, B * H)](Q, K, V, output, N, D, 1.0 / math.sqrt(D), Q.stride(1), Q.stride(2),
                             BLOCK_N=BLOCK_N, BLOCK_D=triton.next_power_of_2(D), num_warps=4)
