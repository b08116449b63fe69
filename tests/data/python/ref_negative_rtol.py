# rtol must be >= 0.
rtol = -1e-3


def reference(**kwargs):
    return None
