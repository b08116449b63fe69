# A ref.py whose import fails at module level.
import kprof_no_such_module_for_tests  # noqa: F401


def reference(**kwargs):
    return None
