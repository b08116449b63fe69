# Reference for kernel_torch.py: receives exactly run_kernel's kwargs (tensors are kprof's copies).
import torch


def reference(x, out, N, scale, mode, flag):
    assert type(N) is int and type(scale) is float, (type(N), type(scale))
    assert mode == "mul" and flag is True, (mode, flag)
    return x * scale
