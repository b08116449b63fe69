# run_kernel raises on the marked line.
import torch


def setup(N, seed, **dims):
    x = torch.zeros(N, device="cuda")
    return {"inputs": {"x": x, "N": N}, "outputs": ["x"]}


def run_kernel(x, N):
    bad = x.view(N + 1)  # kprof-test-marker: run_kernel raises
    bad.add_(1)
