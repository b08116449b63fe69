# `reference` exists but is not a function.
reference = [1, 2, 3]
