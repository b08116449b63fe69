"""The exceptions of kprof's Python API."""

from __future__ import annotations

from typing import List, Optional


class KprofError(Exception):
    """Base class of kprof's exceptions. ``exit_code`` is the command line's (1 or 2)."""

    exit_code = 1


class UsageError(KprofError, ValueError):
    """A usage or input error (the command line's exit 2): a bad option or value, a missing file
    or .so, a bad solve() signature, a missing dimension, a broken ref.py. Raised before any GPU
    work when the options alone show it. ``message`` and ``hint`` are kprof's own words; the hint
    says what to do. Raised whatever ``raise_on_failure`` says (that flag concerns failures, exit 1:
    :class:`CheckFailed`)."""

    exit_code = 2

    def __init__(self, message: str, hint: str = "", argv: Optional[List[str]] = None):
        self.message = message
        self.hint = hint
        self.argv = list(argv or [])
        super().__init__(message + (f"\n  hint: {hint}" if hint else ""))


class CheckFailed(KprofError):
    """The checked thing failed (exit 1: not ready, wrong output, kernel fault or hang, nvcc
    failed, ncu could not measure), raised only with ``raise_on_failure=True``. ``report`` is the
    Report that would have been returned."""

    exit_code = 1

    def __init__(self, report: "object", message: str):
        self.report = report
        super().__init__(message)
