# GPU test reference: the accepted return forms, selected by the scalar `form`.
import torch


def reference(x, out, form, **kwargs):
    y = x.to(torch.float32) + 1
    if form == 0:
        return y                                  # the single output
    if form == 1:
        return (y,)                               # a tuple in output order
    if form == 2:
        return {"out": y, "debug": y * 0}         # a dict (extra keys are ignored)
    if form == 3:
        return y.to(torch.float64).reshape(-1, 1)  # float64, 2-D: flattened, kept as float64
    if form == 4:
        return y[:-1]                             # one element short
    if form == 5:
        return {"other": y}                       # the output is missing
    if form == 6:
        return [y.tolist()]                       # not a tensor
    raise ValueError(form)
