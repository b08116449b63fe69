# A kernel with a syntax error on the marked line.


def setup(N, seed):
    return {"inputs": {}, "outputs": [}  # kprof-test-marker: syntax


def run_kernel(**inputs):
    pass
