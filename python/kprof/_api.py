"""kprof's Python API: each function runs one kprof command and returns its JSON report.

The options are the command line's: ``dims`` are the ``--NAME=VALUE`` dimensions, ``sizes`` the
``--size NAME=EXPR`` buffers, ``nvcc_flags`` the flags after ``--``, and every other keyword is the
option of the same name (``warmup_ms=50`` is ``--warmup-ms 50``, ``no_ncu=True`` is ``--no-ncu``;
a list repeats the option). Options are checked by the C++ parser in this process first, so a
usage error raises :class:`kprof.UsageError` before any child starts or the GPU is touched.

check, profile and run execute in a child of this interpreter (``sys.executable -m kprof``: the
same PyTorch), never in the caller's process; env, analyze and compare do too (they print to
stdout, which stays the caller's). A finished command that found a failure (exit 1) returns its
report, with ``report.exit_code == 1``; pass ``raise_on_failure=True`` to get
:class:`kprof.CheckFailed` instead.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from kprof._child import ChildResult, Progress, raise_usage, run_kprof
from kprof._errors import CheckFailed, UsageError

PathLike = Union[str, "os.PathLike[str]"]
Scalar = Union[int, float, str]


class Report(dict):
    """One command's JSON report as a dict (``schema_version`` included), plus where it came from.

    Attributes: ``command`` ("check", ...), ``exit_code`` (0 success, 1 the checked thing failed),
    ``path`` (the JSON file read; None when the command stopped before writing its report, e.g. on a
    machine without a GPU: the dict then holds only ``exit_code``, ``report_written`` (False) and
    ``error`` {"message", "hint"}), ``output_dir`` (the folder of
    its reports: Markdown, .ncu-rep, charts), ``error`` ({"message", "hint"} of the last error the
    command printed, or None) and ``stderr_tail`` (its last stderr lines).
    """

    def __init__(self, data: Mapping[str, Any], *, command: str, exit_code: int, path: Optional[str],
                 output_dir: Optional[str], error: Optional[Dict[str, str]], stderr_tail: List[str]):
        super().__init__(data)
        self.command = command
        self.exit_code = exit_code
        self.path = path
        self.output_dir = output_dir
        self.error = error
        self.stderr_tail = stderr_tail

    @property
    def ok(self) -> bool:
        """True when the command exited 0."""
        return self.exit_code == 0

    def __repr__(self) -> str:
        return f"<kprof.Report {self.command} exit {self.exit_code} {self.path or '(no report)'}>"


def _option_words(options: Mapping[str, Any]) -> List[str]:
    words: List[str] = []
    for key, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            words.append(flag)
        elif isinstance(value, (list, tuple)):
            for item in value:
                words += [flag, str(item)]
        else:
            words += [flag, str(value)]
    return words


def _kernel_words(dims: Optional[Mapping[str, Scalar]], sizes: Optional[Mapping[str, Scalar]],
                  options: Mapping[str, Any]) -> List[str]:
    words = [f"--{name}={value}" for name, value in (dims or {}).items()]
    for name, expr in (sizes or {}).items():
        words += ["--size", f"{name}={expr}"]
    return words + _option_words(options)


def _validate(argv: List[str]) -> str:
    """Parses ``kprof ARGV...`` with the C++ parser in this process (nothing runs); returns where
    the command writes its reports (its -o, else the option's default). Raises UsageError."""
    from kprof import _host

    core = _host.prepare(owns_stdout=False)
    parsed = core.check_args(["kprof"] + argv)
    if parsed["code"] == 2:
        raise UsageError(parsed["message"], parsed["hint"], argv=argv)
    return parsed["output"]


def _read_fresh(path: str, since: float) -> Optional[Dict[str, Any]]:
    try:
        if os.path.getmtime(path) < since:
            return None  # an earlier run's file: this run wrote none
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _execute(command: str, argv: List[str], json_name: str, *, raise_on_failure: bool, progress: Progress,
             wall_timeout_s: Optional[float]) -> Report:
    output = _validate(argv)
    if command == "env":  # env's -o is the Markdown report's path; the JSON is beside it
        output_dir = os.path.dirname(output) or "."
        json_path = os.path.splitext(output)[0] + ".json"
    else:
        output_dir = output
        json_path = os.path.join(output, json_name)
    since = time.time() - 1.0
    result: ChildResult = run_kprof(argv, progress=progress, timeout=wall_timeout_s)
    if result.exit_code == 2:
        raise_usage(result, argv)
    data = _read_fresh(json_path, since)
    error = {"message": result.error_message, "hint": result.error_hint} if result.error_message else None
    if data is None:
        # The command stopped before writing its report (no GPU, a failed build, ...): the dict says
        # so instead of being empty, so report["exit_code"] and report["error"] are always there.
        last = next((ln for ln in reversed(result.stderr_tail) if ln.strip()), "")
        data = {"exit_code": result.exit_code, "report_written": False,
                "error": error or {"message": last or f"kprof {command} exited {result.exit_code}", "hint": ""}}
        json_path = None
    report = Report(data, command=command, exit_code=result.exit_code,
                    path=json_path, output_dir=output_dir, error=error,
                    stderr_tail=result.stderr_tail)
    if result.exit_code != 0 and (raise_on_failure or json_path is None and result.exit_code < 0):
        why = result.error_message or (f"killed by signal {-result.exit_code}" if result.exit_code < 0 else
                                       "the check failed")
        raise CheckFailed(report, f"kprof {command} failed (exit {result.exit_code}): {why}")
    return report


def env(*, gpu: int = 0, output: Optional[PathLike] = None, timeout: Optional[float] = None,
        raise_on_failure: bool = False, progress: Progress = False, wall_timeout_s: Optional[float] = None) -> Report:
    """``kprof env``: is this machine ready (GPU, driver, nvcc, ncu and counter access, this Python's
    PyTorch / Triton / CuTe DSL, CUTLASS, CUPTI)? Returns env_check.json (``report["ready"]``,
    ``report["blockers"]``, ``report["items"]``); exit 1 means not ready.

    >>> import kprof
    >>> r = kprof.env()
    >>> r["ready"], [b for b in r["blockers"]]
    """
    argv = ["env", "--gpu", str(gpu)] + _option_words({"output": output, "timeout": timeout})
    return _execute("env", argv, "env_check.json", raise_on_failure=raise_on_failure, progress=progress,
                    wall_timeout_s=wall_timeout_s)


def check(kernel: PathLike, ref: PathLike, dims: Optional[Mapping[str, Scalar]] = None, *,
          sizes: Optional[Mapping[str, Scalar]] = None, output_dir: Optional[PathLike] = None,
          nvcc_flags: Optional[Sequence[str]] = None, raise_on_failure: bool = False, progress: Progress = True,
          wall_timeout_s: Optional[float] = None, **options: Any) -> Report:
    """``kprof check KERNEL --ref REF --DIM=...``: the kernel's outputs against ref.py's
    ``reference(**kwargs)``. Returns correctness.json (``report["pass"]``, ``report["trials"]``).
    Options: atol, rtol, trials, build, so, implementation, seed, gpu, timeout, sanitize, ...

    >>> r = kprof.check("vector_add.cu", "ref.py", {"N": 1 << 20}, build=True)
    >>> r["pass"]
    """
    argv = ["check", os.fspath(kernel), "--ref", os.fspath(ref)] + _out(output_dir)
    argv += _kernel_words(dims, sizes, options) + _nvcc(nvcc_flags)
    return _execute("check", argv, "correctness.json", raise_on_failure=raise_on_failure, progress=progress,
                    wall_timeout_s=wall_timeout_s)


def profile(kernel: PathLike, dims: Optional[Mapping[str, Scalar]] = None, *,
            sizes: Optional[Mapping[str, Scalar]] = None, output_dir: Optional[PathLike] = None,
            nvcc_flags: Optional[Sequence[str]] = None, raise_on_failure: bool = False, progress: Progress = True,
            wall_timeout_s: Optional[float] = None, **options: Any) -> Report:
    """``kprof profile KERNEL --DIM=...``: times the kernel, runs ncu on one call, classifies it.
    Returns profile.json (``report["timing"]``, ``report["call"]`` with class, limiter, bound and
    findings). Options: build, no_ncu, metrics, iters, warmup_ms, noise_target, no_l2_flush, ...

    >>> r = kprof.profile("softmax.cu", {"N": 4096, "D": 1024}, sizes={"input": "N*D", "output": "N*D"})
    >>> r["timing"]["kernel_time_reported"]
    """
    argv = ["profile", os.fspath(kernel)] + _out(output_dir)
    argv += _kernel_words(dims, sizes, options) + _nvcc(nvcc_flags)
    return _execute("profile", argv, "profile.json", raise_on_failure=raise_on_failure, progress=progress,
                    wall_timeout_s=wall_timeout_s)


def run(kernels: Sequence[PathLike], ref: PathLike, dims: Optional[Mapping[str, Scalar]] = None, *,
        sizes: Optional[Mapping[str, Scalar]] = None, output_dir: Optional[PathLike] = None,
        nvcc_flags: Optional[Sequence[str]] = None, raise_on_failure: bool = False, progress: Progress = True,
        wall_timeout_s: Optional[float] = None, **options: Any) -> Report:
    """``kprof run K1 K2 ... --ref REF --DIM=...``: env, check and profile of every version, then
    their comparison. Returns comparison.json (``report["versions"]``: status, time_ms, class,
    pct_of_bound, top_finding, ... per version); each version's own reports are in
    ``report.output_dir/<version>/``. A failed version leaves the others readable (exit 1).

    >>> r = kprof.run(["v0.cu", "v1.cu"], "ref.py", {"N": 4096, "D": 1024}, build=True)
    >>> [(v["name"], v["time_ms"]) for v in r["versions"]]
    """
    argv = run_argv(kernels, ref, dims, sizes=sizes, output_dir=output_dir, nvcc_flags=nvcc_flags, **options)
    return _execute("run", argv, "comparison.json", raise_on_failure=raise_on_failure, progress=progress,
                    wall_timeout_s=wall_timeout_s)


def run_argv(kernels: Union[PathLike, Sequence[PathLike]], ref: PathLike,
             dims: Optional[Mapping[str, Scalar]] = None, *, sizes: Optional[Mapping[str, Scalar]] = None,
             output_dir: Optional[PathLike] = None, nvcc_flags: Optional[Sequence[str]] = None,
             **options: Any) -> List[str]:
    """The words of ``kprof run`` for :func:`run`'s arguments (without ``kprof``); the pytest gate
    and the MCP tool check them with the parser before anything runs."""
    if isinstance(kernels, (str, os.PathLike)):
        kernels = [kernels]
    argv = ["run", *[os.fspath(k) for k in kernels], "--ref", os.fspath(ref)] + _out(output_dir)
    return argv + _kernel_words(dims, sizes, options) + _nvcc(nvcc_flags)


def compare(results: Sequence[PathLike], *, fail_if_slower: Optional[float] = None,
            output_dir: Optional[PathLike] = None, raise_on_failure: bool = False, progress: Progress = False,
            wall_timeout_s: Optional[float] = None) -> Report:
    """``kprof compare BASELINE NEW ...``: saved results (comparison.json, profile.json or their
    folders) compared version by version with noise-aware verdicts. Returns comparison.json
    (``report["versions"]``, ``report["gate"]``); with ``fail_if_slower=PCT`` a regression beyond
    noise and PCT % gives ``report.exit_code == 1``. No GPU needed.

    >>> r = kprof.compare(["baseline/", "profile_out/"], fail_if_slower=5)
    >>> r.exit_code, r["gate"]
    """
    argv = ["compare", *[os.fspath(r) for r in results]] + _out(output_dir)
    argv += _option_words({"fail_if_slower": fail_if_slower})
    return _execute("compare", argv, "comparison.json", raise_on_failure=raise_on_failure, progress=progress,
                    wall_timeout_s=wall_timeout_s)


def analyze(report: PathLike, *, output_dir: Optional[PathLike] = None, raise_on_failure: bool = False,
            progress: Progress = False, wall_timeout_s: Optional[float] = None, **options: Any) -> Report:
    """``kprof analyze REPORT``: the bottleneck verdict of an existing .ncu-rep / .ncu-repz / raw
    CSV, no GPU needed. Returns analysis.json (``report["kernels"]``, ``report["call"]``).
    Options: top, sass, no_roofline, timeout.

    >>> r = kprof.analyze("profile_out/profile.ncu-rep")
    >>> r["call"]["class"]
    """
    argv = ["analyze", os.fspath(report), "--json"] + _out(output_dir) + _option_words(options)
    return _execute("analyze", argv, "analysis.json", raise_on_failure=raise_on_failure, progress=progress,
                    wall_timeout_s=wall_timeout_s)


def _out(output_dir: Optional[PathLike]) -> List[str]:
    return ["-o", os.fspath(output_dir)] if output_dir is not None else []


def _nvcc(flags: Optional[Sequence[str]]) -> List[str]:
    return ["--", *flags] if flags else []
