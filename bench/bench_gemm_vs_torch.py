#!/usr/bin/env python3
"""Benchmark: the CUTLASS GEMM example against torch.matmul at the same size.

Both timed the same way kprof times kernels: CUDA events around each call after warm-up, the L2
flushed by reading a 2 x L2 buffer between calls, median of ITERS calls. kprof's own number comes from
`kprof profile` (profile.json); torch.matmul is timed here with torch.cuda.Event. torch.matmul of two
fp16 matrices writes fp16 (the CUTLASS example writes fp32 C): the table says so.

Usage: python3 bench/bench_gemm_vs_torch.py KPROF OUTDIR [M N K]   (prints one Markdown table)
"""
import json
import os
import subprocess
import sys

import torch

KPROF, OUT = sys.argv[1], sys.argv[2]
M, N, K = (int(x) for x in sys.argv[3:6]) if len(sys.argv) >= 6 else (4096, 4096, 4096)
ITERS = 100
GEMM = "examples/cutlass/gemm/gemm.cu"

out = os.path.join(OUT, "gemm_profile")
subprocess.run([KPROF, "profile", GEMM, "--implementation", "cutlass", f"--M={M}", f"--N={N}", f"--K={K}",
                "--size", "A=M*K", "--size", "B=K*N", "--size", "C=M*N", "-o", out], check=True,
               capture_output=True)
j = json.load(open(os.path.join(out, "profile.json")))
kprof_call = j["timing"]["call_time_ms"]["median"]
kprof_kernel = j["timing"]["kernel_time"]["sum_ms"]["median"]
cls = j["call"]["class"] if "call" in j else "n/a"

a = torch.randn(M, K, device="cuda", dtype=torch.float16)
b = torch.randn(K, N, device="cuda", dtype=torch.float16)
l2 = torch.cuda.get_device_properties(0).L2_cache_size
scratch = torch.empty(2 * l2 // 4, device="cuda", dtype=torch.float32)
for _ in range(10):
    torch.matmul(a, b)
times = []
for _ in range(ITERS):
    scratch.sum()  # flush L2 by reading, as kprof does
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    torch.matmul(a, b)
    e.record()
    e.synchronize()
    times.append(s.elapsed_time(e))
times.sort()
torch_ms = times[len(times) // 2]
flop = 2.0 * M * N * K
print(f"| {M}x{N}x{K} | CUTLASS example (fp16 in, fp32 out), kprof call time | {kprof_call * 1e3:.1f} us | "
      f"{flop / kprof_call / 1e9:.0f} TFLOP/s | {cls} |")
print(f"| {M}x{N}x{K} | CUTLASS example, kprof kernel time (CUPTI) | {kprof_kernel * 1e3:.1f} us | "
      f"{flop / kprof_kernel / 1e9:.0f} TFLOP/s | |")
print(f"| {M}x{N}x{K} | torch.matmul (fp16 in, fp16 out), CUDA events | {torch_ms * 1e3:.1f} us | "
      f"{flop / torch_ms / 1e9:.0f} TFLOP/s | |")
