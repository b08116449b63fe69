# A ref.py with a syntax error: kprof must report this file and the line below.


def reference(a, b)
    return a + b
