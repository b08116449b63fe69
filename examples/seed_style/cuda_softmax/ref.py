"""Reference for every version of solve(float* input, float* output, int N, int D) (v0.cu ..
v2.cu): row softmax of an N x D row-major matrix, written as the original workflow's users
write it: it fills `output` in place AND returns it.

Both buffers arrive as flat 1-D float32 CUDA tensors (run kprof with --size input=N*D
--size output=N*D). The returned tensor IS `output` (same storage), so kprof takes it as the
in-place result, not as a second answer; `input` is changed by neither side, so the non-const
pointer is treated as an input.
Softmax values are about 1/D; float32 expf and a D-term float32 sum give relative errors near
1e-6, so a tiny atol and rtol 1e-4: a wrong normalization of even 0.1% fails.
"""
import torch

atol = 1e-6
rtol = 1e-4


def reference(input, output, N, D):
    output.copy_(torch.softmax(input.view(N, D), -1).view(-1))
    return output
