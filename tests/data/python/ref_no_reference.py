# A ref.py that forgot to define reference().
atol = 1e-3


def referense(**kwargs):  # misspelled on purpose
    return None
