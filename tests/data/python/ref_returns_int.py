# A reference returning something that is not an output structure.


def reference(**kwargs):
    return 42
