# A reference that raises inside a helper called from reference().


def helper(scale):
    total = scale * 2
    return total / 0  # kprof-test-marker: raise


def reference(N, scale, **kwargs):
    return helper(scale)
