# A Triton-style kernel module with a syntax error on line 8.
import torch


def setup(N, seed, **kwargs):
    x = torch.zeros(N, device="cuda")
    return {"inputs": {"x": x, "N": N}, "outputs": ["x"]}
def run_kernel(x, N)
    x.add_(1)
