"""BROKEN ON PURPOSE: this ref.py defines no `reference` function (kprof check must exit 2
saying that ref.py must define reference(**kwargs)).

The function below is misspelt, a typical slip.
Use: kprof check examples/cuda/vector_add/vector_add.cu --ref examples/broken/ref_no_reference.py --N=1024
"""


def refrence(A, B, C, N, **kwargs):  # BUG: misspelt, so no `reference` is defined
    C[:N].copy_(A[:N] + B[:N])
