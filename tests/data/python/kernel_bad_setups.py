# setup() returns a different malformed structure for each value of the `case` dimension.
# None of them contains a tensor, so kprof can reject them without importing torch.


def setup(case, seed, **dims):
    if case == 0:
        return [1, 2, 3]                                   # not a dict
    if case == 1:
        return {"outputs": ["out"]}                        # no "inputs"
    if case == 2:
        return {"inputs": {"out": 1}}                      # no "outputs"
    if case == 3:
        return {"inputs": [1, 2], "outputs": ["out"]}      # inputs not a dict
    if case == 4:
        return {"inputs": {"out": 1}, "outputs": "out"}    # outputs not a list
    if case == 5:
        return {"inputs": {"a": 1, "b": 2}, "outputs": ["c"]}  # output not in inputs
    if case == 6:
        return {"inputs": {"out": 3}, "outputs": ["out"]}  # output is not a tensor
    if case == 7:
        return {"inputs": {"out": 3}, "outputs": []}       # no outputs
    if case == 8:
        return {"inputs": {"out": 3}, "outputs": ["out", "out"]}  # listed twice
    if case == 9:
        return {"inputs": {1: 3}, "outputs": ["out"]}      # key not a str
    if case == 10:
        return {"inputs": {"out": 3}, "outputs": [7]}      # entry not a str
    raise ValueError("unknown case %d" % case)


def run_kernel(**inputs):
    pass
