# Checks the kwargs kprof passes without tensors: ints as int, floats as float, extras by name.


def reference(N, alpha, **kwargs):
    if type(N) is not int:
        raise TypeError("N should be an int, got %s" % type(N).__name__)
    if type(alpha) is not float:
        raise TypeError("alpha should be a float, got %s" % type(alpha).__name__)
    if N != 1024 or alpha != 0.5:
        raise ValueError("wrong values N=%r alpha=%r" % (N, alpha))
    if kwargs:
        raise ValueError("unexpected kwargs: %s" % sorted(kwargs))
    return None
