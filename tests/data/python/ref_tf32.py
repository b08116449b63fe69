# GPU test reference that turns on TF32 float32 matrix products, as some users' ref.py files do.
import torch

torch.backends.cuda.matmul.allow_tf32 = True


def reference(x, out, **kwargs):
    out.copy_(x * 2)
