"""cuBLAS through torch.matmul: an fp16 GEMM C = A @ B (M x K times K x N, fp16 out), as a Python
kernel (setup / run_kernel, docs/REFERENCE.md) so kprof times and profiles the library's own
wgmma kernel (nvjet on Hopper). Run: kprof run bench/kernels/torch_matmul.py --implementation triton
--ref bench/kernels/torch_matmul_ref.py --M=8192 --N=8192 --K=8192 (the Python contract is the same
for every Python implementation; no Triton code runs)."""
import torch


def setup(M, N, K, seed, **kwargs):
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(M, K, device="cuda", dtype=torch.float16, generator=g)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16, generator=g)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    return {"inputs": {"a": a, "b": b, "c": c}, "outputs": ["c"]}


def run_kernel(a, b, c):
    torch.matmul(a, b, out=c)
