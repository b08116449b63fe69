# A PyTorch-only kernel module (no Triton needed) in the seed's setup/run_kernel form.
import torch


def setup(N, seed, scale=2.0, **dims):
    g = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randn(N, device="cuda", generator=g)
    out = torch.empty_like(x)
    return {
        "inputs": {"x": x, "out": out, "N": N, "scale": scale, "mode": "mul", "flag": True},
        "outputs": ["out"],
    }


def run_kernel(x, out, N, scale, mode, flag):
    assert mode == "mul" and flag is True
    torch.mul(x, scale, out=out)
