# A kernel module that defines setup() but forgot run_kernel().


def setup(seed, **dims):
    return {"inputs": {}, "outputs": []}
