# A reference with module-level tolerances and no tensors: kprof reads atol/rtol.
atol = 0.02
rtol = 0


def reference(**kwargs):
    return None
