"""BROKEN ON PURPOSE: a reference that raises (kprof check must exit 2 and show this error line).

Same semantics as examples/cuda/vector_add/ref.py, but the "normalisation" below divides by a
count that is zero, so reference() raises ZeroDivisionError on the marked line.
Use: kprof check examples/cuda/vector_add/vector_add.cu --ref examples/broken/ref_raises.py --N=1024
"""


def reference(A, B, C, N, **kwargs):
    empty_rows = 0
    scale = N / empty_rows  # BUG: ZeroDivisionError raised here
    C[:N].copy_((A[:N] + B[:N]) * scale)
