# setup() returns a tensor kprof cannot use, selected by the `case` dimension.
import torch


def setup(N, case, seed, **dims):
    if case == 0:
        out = torch.zeros(N)                                     # on the CPU
    elif case == 1:
        out = torch.zeros(N, 2, device="cuda")[:, 0]             # not contiguous
    elif case == 2:
        out = torch.zeros(N, dtype=torch.bool, device="cuda")    # unsupported dtype
    else:
        x = torch.zeros(N)                                       # a CPU input next to a good output
        return {"inputs": {"x": x, "out": torch.zeros(N, device="cuda")}, "outputs": ["out"]}
    return {"inputs": {"out": out}, "outputs": ["out"]}


def run_kernel(**inputs):
    pass
