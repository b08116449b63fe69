"""Reference for every version of the Triton row softmax (v0.py .. v3.py), written the way the
original kernel-profile workflow's users write it: the output is filled as a FLAT buffer.

setup() returns input and output of shape (N, D). Like the original scripts, kprof hands every
output with more than one dimension to reference as a flat 1-D view of its storage, while
inputs keep their shapes: input is (N, D), output is (N * D,).
Softmax values are about 1/D (1e-3 at D = 1024); float32 exp and a D-term float32 sum give
relative errors near 1e-6, so atol is tiny (well below the values) and rtol 1e-4: a wrong
normalization of even 0.1% fails.
"""
import torch

atol = 1e-6
rtol = 1e-4


def reference(input, output, N, D):
    output.copy_(torch.softmax(input, dim=-1).view(-1))
