"""Reference for the Triton row softmax (v0.py .. v3.py) written for the shapes setup() returns:
output.copy_ of an (N, D) result into the (N, D) output. Must pass exactly like the flat
ref.py: kprof retries a reference that fails on the flat output with the shaped tensors
(see docs/REFERENCE.md). Tolerances as in ref.py.
"""
import torch

atol = 1e-6
rtol = 1e-4


def reference(input, output, N, D):
    output.copy_(torch.softmax(input, -1))
