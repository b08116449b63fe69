"""The fixed reference for softmax_logsoftmax.cu (compare ref_returns_one.py): returns a dict
naming both outputs. input is changed by neither side, so its non-const pointer is treated as
an input. probs ~1/D: a tiny atol and rtol 1e-4, as for the other softmax references;
logprobs ~ -log(D) (-4 to -10 at D = 1000), where float32 rounding of x - max - log(sum) is
~1e-6 absolute, well inside rtol 1e-4.
"""
import torch

atol = 1e-6
rtol = 1e-4


def reference(input, probs, logprobs, N, D):
    x = input.view(N, D)
    return {"probs": torch.softmax(x, -1).view(-1), "logprobs": torch.log_softmax(x, -1).view(-1)}
