"""Reference for solve(const float* input, float* output, int N, int D): row softmax of N x D.

input/output are flat float32 CUDA tensors of N*D elements (run kprof with
--size input=N*D --size output=N*D). Computed in float64, then stored into output (float32).
Softmax values lie in [0, 1] (about 1/D each); float32 expf and a D-term float32 sum give
~1e-6 relative error, so a tight atol (the values are small) and rtol 1e-4.
"""
import torch

atol = 1e-6
rtol = 1e-4


def reference(input, output, N, D, **kwargs):
    x = input[: N * D].view(N, D).double()
    output[: N * D].copy_(torch.softmax(x, dim=1).reshape(-1))
