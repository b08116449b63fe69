"""The clock question of gemm_clocks.py under ncu: `calls` back-to-back cuBLAS fp16 GEMMs (no sync between
them), so ncu's --launch-skip can profile one call after the GPU has run hot for a while (against
one right after warm-up). Usage: ncu ... --launch-skip S --launch-count 1 python3 bench/gemm_hot.py [N] [calls]"""
import sys
import torch

n = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
calls = int(sys.argv[2]) if len(sys.argv) > 2 else 100
a = torch.randn(n, n, device="cuda", dtype=torch.float16)
b = torch.randn(n, n, device="cuda", dtype=torch.float16)
c = torch.empty(n, n, device="cuda", dtype=torch.float16)
for _ in range(calls):
    torch.matmul(a, b, out=c)
torch.cuda.synchronize()
