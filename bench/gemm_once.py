"""One cuBLAS fp16 GEMM inside a profiler range after warm-up (for ncu --profile-from-start off)."""
import sys
import torch
n = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
a = torch.randn(n, n, device="cuda", dtype=torch.float16)
b = torch.randn(n, n, device="cuda", dtype=torch.float16)
for _ in range(10):
    c = torch.matmul(a, b)
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStart()
c = torch.matmul(a, b)
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStop()
