"""Triton attention, version 1 (fused, one pass): one program per query row, online softmax.

out = softmax(Q K^T / sqrt(D)) V for each (batch, head). Q, K, V and output are (B, H, N, D)
float32, contiguous. Program (row, b * H + h) walks the keys once in blocks of BLOCK_N = 64: the
block's scores (elementwise product and row sum, no tl.dot), then the running maximum m and sum l
(when the maximum grows, l and the accumulated output are rescaled by exp(m_old - m_new)), then
the weighted V rows added to the accumulator. K and V are read once per query row (v0: K three
times); every query row still reads all of K and V from L2. Any B, H, N; D up to 128.
Run: kprof check examples/attention/triton/v1.py --ref examples/attention/triton/ref.py --B=2 --H=8 --N=1024 --D=64
"""
import math

import torch
import triton
import triton.language as tl

BLOCK_N = 64
MAX_D = 128


@triton.jit
def attention_v1(q_ptr, k_ptr, v_ptr, o_ptr, N, D, scale, stride_bh, stride_n,
                 BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    row = tl.program_id(0)
    base = tl.program_id(1).to(tl.int64) * stride_bh
    d = tl.arange(0, BLOCK_D)
    dmask = d < D
    q = tl.load(q_ptr + base + row * stride_n + d, mask=dmask, other=0.0) * scale
    m = tl.max(tl.full([BLOCK_N], float("-inf"), tl.float32), axis=0)
    l = tl.sum(tl.zeros([BLOCK_N], tl.float32), axis=0)
    acc = tl.zeros([BLOCK_D], tl.float32)
    for start in range(0, N, BLOCK_N):
        n = start + tl.arange(0, BLOCK_N)
        nmask = n < N
        kv_mask = nmask[:, None] & dmask[None, :]
        k = tl.load(k_ptr + base + n[:, None] * stride_n + d[None, :], mask=kv_mask, other=0.0)
        s = tl.where(nmask, tl.sum(k * q[None, :], axis=1), float("-inf"))
        m_new = tl.maximum(m, tl.max(s, axis=0))  # finite: key `start` < N exists
        alpha = tl.exp(m - m_new)  # 0 on the first block (m = -inf)
        p = tl.exp(s - m_new)
        v = tl.load(v_ptr + base + n[:, None] * stride_n + d[None, :], mask=kv_mask, other=0.0)
        acc = acc * alpha + tl.sum(p[:, None] * v, axis=0)
        l = l * alpha + tl.sum(p, axis=0)
        m = m_new
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
    attention_v1[(N, B * H)](Q, K, V, output, N, D, 1.0 / math.sqrt(D), Q.stride(1), Q.stride(2),
                             BLOCK_N=BLOCK_N, BLOCK_D=triton.next_power_of_2(D), num_warps=4)
