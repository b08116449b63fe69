# GPU test reference for a kernel with two outputs that wrongly returns one tensor.


def reference(x, a, b):
    return x + 1
