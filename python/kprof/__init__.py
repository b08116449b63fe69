"""kprof: check, time and profile GPU kernels from Python.

Each function runs the kprof command of the same name and returns its JSON report as a dict
(:class:`kprof.Report`): :func:`env`, :func:`check`, :func:`profile`, :func:`run`, :func:`compare`,
:func:`analyze`. Usage errors raise :class:`kprof.UsageError` (message and hint) before any GPU
work, whatever ``raise_on_failure`` says; failures (exit 1) return the report
(``raise_on_failure=True`` raises :class:`kprof.CheckFailed`).
GPU work runs in a child process of this interpreter, never in the caller's. The console script
``kprof`` is the command line itself; the pytest plugin gives the ``kprof_gate`` fixture.
"""

from kprof._api import Report, analyze, check, compare, env, profile, run
from kprof._errors import CheckFailed, KprofError, UsageError

try:
    from kprof._version import __version__
except ImportError:  # a source tree without a build
    __version__ = "0+unknown"

__all__ = ["env", "check", "profile", "run", "compare", "analyze", "Report", "UsageError", "CheckFailed",
           "KprofError", "__version__"]
