"""kprof's Python API: each function runs one kprof command and returns its JSON report.

The options are the command line's: ``dims`` are the ``--NAME=VALUE`` dimensions, ``sizes`` the
``--size NAME=EXPR`` buffers (a dict {NAME: EXPR} or a list of 'NAME=EXPR' strings),
``nvcc_flags`` the flags after ``--``, and every other keyword is the option of the same name
(``warmup_ms=50`` is ``--warmup-ms 50``, ``no_ncu=True`` is ``--no-ncu``; a list repeats the option). Options are checked by the C++ parser in this process first, so a
usage error raises :class:`kprof.UsageError` before any child starts or the GPU is touched.

check, profile and run execute in a child of this interpreter (``sys.executable -m kprof``: the
same PyTorch), never in the caller's process; env, analyze and compare do too (they print to
stdout, which stays the caller's). A finished command that found a failure (exit 1) returns its
report, with ``report.exit_code == 1``; pass ``raise_on_failure=True`` to get
:class:`kprof.CheckFailed` instead. ``raise_on_failure`` concerns these failures only: a usage or
input error (exit 2: a bad option, a missing file or .so, a broken ref.py) always raises
:class:`kprof.UsageError`, whether the parser finds it in this process or the child does; its
message is the exception's, not printed on stderr as well.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from kprof import _options
from kprof._child import ChildResult, Progress, raise_usage, run_kprof
from kprof._errors import CheckFailed, UsageError

PathLike = Union[str, "os.PathLike[str]"]
Scalar = Union[int, float, str]


class ReportKeyError(KeyError):
    """The KeyError of a failed command's Report: its message is the reason, shown as written."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class Report(dict):
    """One command's JSON report as a dict (``schema_version`` included), plus where it came from.

    Attributes: ``command`` ("check", ...), ``exit_code`` (0 success, 1 the checked thing failed),
    ``path`` (the JSON file read; None when the command stopped before writing its report, e.g. on a
    machine without a GPU: the dict then holds only ``exit_code``, ``report_written`` (False) and
    ``error`` {"message", "hint"}), ``output_dir`` (the folder of
    its reports: Markdown, .ncu-rep, charts), ``error`` ({"message", "hint"} of the last error the
    command printed, or None) and ``stderr_tail`` (its last stderr lines).

    ``report[key]`` for a key it lacks raises KeyError; for a failed command (exit 1) the message says
    why, e.g. ``'versions': this run stopped before any version ran (exit 1): <report.error>``.
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

    def __missing__(self, key: Any) -> Any:
        """``report[key]`` for a key it lacks: a KeyError, which for a failed command says why the key is
        missing (``kprof.run`` without a GPU returns its env report, which has no "versions")."""
        if self.exit_code == 0:
            raise KeyError(key)
        err = self.error or (super().get("error") if isinstance(super().get("error"), dict) else None) or {}
        why = err.get("message") or next((ln for ln in reversed(self.stderr_tail) if ln.strip()), "")
        if self.command == "run" and "versions" not in self:
            stopped = "this run stopped before any version ran"
        else:
            written = os.path.basename(self.path) if self.path else "no report"
            stopped = f"kprof {self.command} failed and its report ({written}) has no {key!r}"
        raise ReportKeyError(f"{key!r}: {stopped} (exit {self.exit_code})" + (f": {why}" if why else ""))

    def __repr__(self) -> str:
        return f"<kprof.Report {self.command} exit {self.exit_code} {self.path or '(no report)'}>"


#: sizes= as the functions take it: {buffer: expression}, or the command line's 'NAME=EXPR' strings.
Sizes = Union[Mapping[str, Scalar], Sequence[str]]
#: An example of sizes= for hints that have nothing of the caller's to rewrite.
SIZES_EXAMPLE = "e.g. sizes={'input': 'N*D'} or sizes=['input=N*D'] (buffer name: expression of the dims)"


def _name_expr(text: Any) -> Optional[Tuple[str, str]]:
    """``'NAME=EXPR'`` as (name, expr), or None for anything else."""
    if not isinstance(text, str) or "=" not in text:
        return None
    name, expr = (part.strip() for part in text.split("=", 1))
    return (name, expr) if name and expr else None


def _as_sizes_dict(value: Any) -> Optional[Dict[str, str]]:
    """``value`` (what a caller passed as sizes= or size=) read as {buffer: expression} when it can be:
    a dict of names to expressions, a 'NAME=EXPR' string, or a list of such strings or dicts; None
    otherwise. What a hint offers is this dict, so following it works."""
    if isinstance(value, Mapping):
        if all(isinstance(k, str) and k and "=" not in k and isinstance(v, (str, int, float)) and not isinstance(v, bool)
               and str(v).strip() for k, v in value.items()):
            return {k: str(v) for k, v in value.items()}
        return None
    if isinstance(value, str):
        pair = _name_expr(value)
        return dict([pair]) if pair else None
    if isinstance(value, (list, tuple)) and value:
        out: Dict[str, str] = {}
        for item in value:
            part = _as_sizes_dict(item)
            if part is None:
                return None
            out.update(part)
        return out
    return None


def size_pairs(sizes: Optional[Sizes], function: str) -> List[Tuple[str, str]]:
    """``sizes`` as (buffer, expression) pairs, in order: a dict {buffer: expression} or a list of
    'NAME=EXPR' strings (the command line's --size). Raises UsageError for anything else, with a hint
    that works as written."""
    if sizes is None:
        return []
    if isinstance(sizes, (list, tuple)) and all(_name_expr(w) for w in sizes):
        return [_name_expr(w) for w in sizes]  # type: ignore[misc]
    fixed = _as_sizes_dict(sizes)
    if isinstance(sizes, Mapping) and fixed is not None:
        return list(fixed.items())
    raise UsageError(f"{function}(): sizes is a dict {{buffer: expression}} or a list of 'NAME=EXPR' strings, "
                     f"not {sizes!r}", f"write sizes={fixed!r}" if fixed else SIZES_EXAMPLE)


def _kernel_words(command: str, dims: Optional[Mapping[str, Scalar]], sizes: Optional[Sizes],
                  options: Mapping[str, Any]) -> List[str]:
    words = [f"--{name}={value}" for name, value in (dims or {}).items()]
    for name, expr in size_pairs(sizes, command):
        words += ["--size", f"{name}={expr}"]
    return words + _options.option_words(command, options)


def _checked(command: str, function: str, options: Mapping[str, Any], *, dims: Optional[Mapping[str, Any]] = None,
             sizes: Optional[Sizes] = None, nvcc_flags: Any = None,
             output_dir: Any = None) -> None:
    """The table's checks of one call's arguments (api/options.hpp rows): unknown keywords with the
    closest option, help=True, strings where lists belong, dims keys; raises UsageError."""
    if "size" in options and command in ("check", "profile", "run"):  # the --size option is the functions' sizes=
        fixed = _as_sizes_dict(options["size"])
        raise UsageError(f"{function}() takes the buffer sizes as sizes=, not size=",
                         f"write sizes={fixed!r}" if fixed else SIZES_EXAMPLE)
    _options.check_keywords(command, options, function, own=("dims", "sizes", "nvcc_flags", "output_dir"),
                            drop=("size",))
    _options.check_dims(dims, command, function)
    size_pairs(sizes, function)
    if nvcc_flags is not None and (isinstance(nvcc_flags, (str, bytes)) or not isinstance(nvcc_flags, (list, tuple))):
        raise UsageError(f"{function}(): nvcc_flags takes a list of strings, not {nvcc_flags!r}",
                         f"write nvcc_flags=[{nvcc_flags!r}]")
    if output_dir is not None:
        text = os.fspath(output_dir)
        if text == "" or text.startswith("-"):
            raise UsageError(f"{function}(): output_dir {text!r} is not a folder name",
                             "pass a folder for the reports, e.g. output_dir='profile_out' (or leave it out)")


def _validate(argv: List[str]) -> str:
    """Parses ``kprof ARGV...`` with the C++ parser in this process (nothing runs); returns where
    the command writes its reports (its -o, else the option's default). Raises UsageError."""
    from kprof import _host

    core = _host.prepare(owns_stdout=False)
    parsed = core.check_args(["kprof"] + argv)
    if parsed["code"] == 2:
        raise UsageError(parsed["message"], parsed["hint"], argv=argv)
    return parsed["output"]


def _own_folder(command: str) -> str:
    """A new folder for one call's reports, under the command's default folder (the option table's
    -o default: profile_out/run-1a2b3c4d/, analyze_out/analyze-.../): every call gets its own, so
    concurrent calls never share or overwrite one another's reports."""
    row = _options.row(command, "output" if command in ("env", "compare") else "output_dir")
    parent = row["default"] if command != "env" else os.path.dirname(row["default"]) or "."
    os.makedirs(parent, exist_ok=True)
    # Under parent as given (relative stays relative) on every Python: since 3.12 mkdtemp itself
    # returns an absolute path.
    return os.path.join(parent, os.path.basename(tempfile.mkdtemp(prefix=f"{command}-", dir=parent)))


def wall_limit(command: str, wall_timeout_s: Optional[float]) -> Optional[float]:
    """The wall-clock limit of a call, seconds: ``wall_timeout_s``, or when None the option table's
    default (--wall-timeout-s, api/defaults.hpp: an hour); None for 0 (no limit). Raises UsageError
    for a value that is not a number >= 0."""
    limit = _options.row(command, "wall_timeout_s")["default"] if wall_timeout_s is None else wall_timeout_s
    if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not limit >= 0:
        raise UsageError(f"{command}(): wall_timeout_s takes seconds >= 0, not {wall_timeout_s!r}",
                         "e.g. wall_timeout_s=7200, or 0 for no limit")
    return float(limit) or None


def _execute(command: str, argv: List[str], *, raise_on_failure: bool, progress: Progress,
             wall_timeout_s: Optional[float]) -> Report:
    """Runs the command in a child and builds its Report from the child's outcome document (its exit
    code, the report it wrote with the content as written, its error and hint): nothing is found by
    a file name or a modification time."""
    limit = wall_limit(command, wall_timeout_s)
    output = _validate(argv)
    output_dir = (os.path.dirname(output) or ".") if command == "env" else output
    # The caller enforces the limit (stopping the child's process group, whose own children end
    # with it); the child is told none, so only one clock runs.
    result: ChildResult = run_kprof([argv[0], "--wall-timeout-s=0", *argv[1:]], progress=progress, timeout=limit)
    outcome = result.outcome or {}
    if outcome.get("error"):
        result.error_message = outcome["error"].get("message", "")
        result.error_hint = outcome["error"].get("hint", "")
    if result.exit_code == 2:
        raise_usage(result, argv)
    error = {"message": result.error_message, "hint": result.error_hint} if result.error_message else None
    written = outcome.get("report") or {}
    data = written.get("content") if isinstance(written.get("content"), dict) else None
    json_path = written.get("path") if data is not None else None
    if data is None:
        # The command stopped before writing its report (no GPU, a failed build, ...): the dict says
        # so instead of being empty, so report["exit_code"] and report["error"] are always there.
        last = next((ln for ln in reversed(result.stderr_tail) if ln.strip()), "")
        data = {"exit_code": result.exit_code, "report_written": False,
                "error": error or {"message": last or f"kprof {command} exited {result.exit_code}", "hint": ""}}
    report = Report(data, command=command, exit_code=result.exit_code,
                    path=json_path, output_dir=output_dir, error=error,
                    stderr_tail=result.stderr_tail)
    if result.exit_code != 0 and (raise_on_failure or json_path is None and result.exit_code < 0):
        why = result.error_message or (f"killed by signal {-result.exit_code}" if result.exit_code < 0 else
                                       "the check failed")
        raise CheckFailed(report, f"kprof {command} failed (exit {result.exit_code}): {why}")
    return report


def env(*, raise_on_failure: bool = False, progress: Progress = False, wall_timeout_s: Optional[float] = None,
        **options: Any) -> Report:
    """``kprof env``: is this machine ready (GPU, driver, nvcc, ncu and counter access, this Python's
    PyTorch / Triton / CuTe DSL, CUTLASS, CUPTI)? Returns env_check.json (``report["ready"]``,
    ``report["blockers"]``, ``report["items"]``); exit 1 means not ready. Options: those of
    ``kprof env`` (``inspect.signature(kprof.env)``): gpu, output, timeout.
    A usage or input error (exit 2) raises UsageError whatever ``raise_on_failure`` says.

    >>> import kprof
    >>> r = kprof.env()
    >>> r["ready"], [b for b in r["blockers"]]
    """
    _checked("env", "env", options, output_dir=options.get("output"))
    if options.get("output") is None:
        options = {**options, "output": os.path.join(_own_folder("env"), "env_check.md")}
    argv = ["env"] + _options.option_words("env", options)
    return _execute("env", argv, raise_on_failure=raise_on_failure, progress=progress,
                    wall_timeout_s=wall_timeout_s)


def check(kernel: PathLike, ref: PathLike, dims: Optional[Mapping[str, Scalar]] = None, *,
          sizes: Optional[Sizes] = None, output_dir: Optional[PathLike] = None,
          nvcc_flags: Optional[Sequence[str]] = None, raise_on_failure: bool = False, progress: Progress = True,
          wall_timeout_s: Optional[float] = None, **options: Any) -> Report:
    """``kprof check KERNEL --ref REF --DIM=...``: the kernel's outputs against ref.py's
    ``reference(**kwargs)``. Returns correctness.json (``report["pass"]``, ``report["trials"]``).
    Options: atol, rtol, trials, build, so, implementation, seed, gpu, timeout, sanitize, ...
    A usage or input error (exit 2) raises UsageError whatever ``raise_on_failure`` says.

    >>> r = kprof.check("vector_add.cu", "ref.py", {"N": 1 << 20}, build=True)
    >>> r["pass"]
    """
    _checked("check", "check", options, dims=dims, sizes=sizes, nvcc_flags=nvcc_flags, output_dir=output_dir)
    output_dir = output_dir if output_dir is not None else _own_folder("check")
    argv = ["check", os.fspath(kernel), "--ref", os.fspath(ref)] + _out(output_dir)
    argv += _kernel_words("check", dims, sizes, options) + _nvcc(nvcc_flags)
    return _execute("check", argv, raise_on_failure=raise_on_failure, progress=progress,
                    wall_timeout_s=wall_timeout_s)


def profile(kernel: PathLike, dims: Optional[Mapping[str, Scalar]] = None, *,
            sizes: Optional[Sizes] = None, output_dir: Optional[PathLike] = None,
            nvcc_flags: Optional[Sequence[str]] = None, raise_on_failure: bool = False, progress: Progress = True,
            wall_timeout_s: Optional[float] = None, **options: Any) -> Report:
    """``kprof profile KERNEL --DIM=...``: times the kernel, runs ncu on one call, classifies it.
    Returns profile.json (``report["timing"]``, ``report["call"]`` with class, limiter, bound and
    findings). Options: build, no_ncu, metrics, iters, warmup_ms, noise_target, no_l2_flush, ...
    A usage or input error (exit 2) raises UsageError whatever ``raise_on_failure`` says.

    >>> r = kprof.profile("softmax.cu", {"N": 4096, "D": 1024}, sizes={"input": "N*D", "output": "N*D"})
    >>> r["timing"]["kernel_time_reported"]
    """
    _checked("profile", "profile", options, dims=dims, sizes=sizes, nvcc_flags=nvcc_flags, output_dir=output_dir)
    output_dir = output_dir if output_dir is not None else _own_folder("profile")
    argv = ["profile", os.fspath(kernel)] + _out(output_dir)
    argv += _kernel_words("profile", dims, sizes, options) + _nvcc(nvcc_flags)
    return _execute("profile", argv, raise_on_failure=raise_on_failure, progress=progress,
                    wall_timeout_s=wall_timeout_s)


def run(kernels: Sequence[PathLike], ref: PathLike, dims: Optional[Mapping[str, Scalar]] = None, *,
        sizes: Optional[Sizes] = None, output_dir: Optional[PathLike] = None,
        nvcc_flags: Optional[Sequence[str]] = None, raise_on_failure: bool = False, progress: Progress = True,
        wall_timeout_s: Optional[float] = None, **options: Any) -> Report:
    """``kprof run K1 K2 ... --ref REF --DIM=...``: env, check and profile of every version, then
    their comparison. Returns comparison.json (``report["versions"]``: status, time_ms, class,
    pct_of_bound, top_finding, ... per version); each version's own reports are in
    ``report.output_dir/<version>/``. A failed version leaves the others readable (exit 1).
    A usage or input error (exit 2) raises UsageError whatever ``raise_on_failure`` says.

    >>> r = kprof.run(["v0.cu", "v1.cu"], "ref.py", {"N": 4096, "D": 1024}, build=True)
    >>> [(v["name"], v["time_ms"]) for v in r["versions"]]
    """
    run_argv(kernels, ref, dims, sizes=sizes, output_dir=output_dir, nvcc_flags=nvcc_flags, **options)  # checks
    output_dir = output_dir if output_dir is not None else _own_folder("run")
    argv = run_argv(kernels, ref, dims, sizes=sizes, output_dir=output_dir, nvcc_flags=nvcc_flags, **options)
    return _execute("run", argv, raise_on_failure=raise_on_failure, progress=progress,
                    wall_timeout_s=wall_timeout_s)


def run_argv(kernels: Union[PathLike, Sequence[PathLike]], ref: PathLike,
             dims: Optional[Mapping[str, Scalar]] = None, *, sizes: Optional[Sizes] = None,
             output_dir: Optional[PathLike] = None, nvcc_flags: Optional[Sequence[str]] = None,
             **options: Any) -> List[str]:
    """The words of ``kprof run`` for :func:`run`'s arguments (without ``kprof``); the pytest gate
    and the MCP tool check them with the parser before anything runs."""
    if isinstance(kernels, (str, os.PathLike)):
        kernels = [kernels]
    _checked("run", "run", options, dims=dims, sizes=sizes, nvcc_flags=nvcc_flags, output_dir=output_dir)
    argv = ["run", *[os.fspath(k) for k in kernels], "--ref", os.fspath(ref)] + _out(output_dir)
    return argv + _kernel_words("run", dims, sizes, options) + _nvcc(nvcc_flags)


def compare(results: Sequence[PathLike], *, output_dir: Optional[PathLike] = None, raise_on_failure: bool = False,
            progress: Progress = False, wall_timeout_s: Optional[float] = None, **options: Any) -> Report:
    """``kprof compare BASELINE NEW ...``: saved results (comparison.json, profile.json or their
    folders) compared version by version with noise-aware verdicts. Returns comparison.json
    (``report["versions"]``, ``report["gate"]``); with ``fail_if_slower=PCT`` a regression beyond
    noise and PCT % gives ``report.exit_code == 1``. No GPU needed.
    A usage or input error (exit 2) raises UsageError whatever ``raise_on_failure`` says.

    >>> r = kprof.compare(["baseline/", "profile_out/"], fail_if_slower=5)
    >>> r.exit_code, r["gate"]
    """
    if isinstance(results, (str, os.PathLike)):
        raise UsageError(f"compare(): results is a list of saved results, baseline first, not {results!r}",
                         "e.g. kprof.compare(['baseline/', 'profile_out/'])")
    _checked("compare", "compare", {k: v for k, v in options.items() if k != "output"}, output_dir=output_dir)
    if "output" in options:
        raise UsageError("compare(): pass output_dir=, not output=")
    output_dir = output_dir if output_dir is not None else _own_folder("compare")
    argv = ["compare", *[os.fspath(r) for r in results]] + _out(output_dir)
    argv += _options.option_words("compare", options)
    return _execute("compare", argv, raise_on_failure=raise_on_failure, progress=progress,
                    wall_timeout_s=wall_timeout_s)


def analyze(report: PathLike, *, output_dir: Optional[PathLike] = None, raise_on_failure: bool = False,
            progress: Progress = False, wall_timeout_s: Optional[float] = None, **options: Any) -> Report:
    """``kprof analyze REPORT``: the bottleneck verdict of an existing .ncu-rep / .ncu-repz / raw
    CSV, no GPU needed. Returns analysis.json (``report["kernels"]``, ``report["call"]``).
    Options: top, sass, no_roofline, timeout.
    A usage or input error (exit 2) raises UsageError whatever ``raise_on_failure`` says.

    >>> r = kprof.analyze("profile_out/profile.ncu-rep")
    >>> r["call"]["class"]
    """
    _checked("analyze", "analyze", options, output_dir=output_dir)
    output_dir = output_dir if output_dir is not None else _own_folder("analyze")
    argv = ["analyze", os.fspath(report), "--json"] + _out(output_dir)
    argv += _options.option_words("analyze", options)
    return _execute("analyze", argv, raise_on_failure=raise_on_failure, progress=progress,
                    wall_timeout_s=wall_timeout_s)


def _out(output_dir: Optional[PathLike]) -> List[str]:
    return ["-o", os.fspath(output_dir)] if output_dir is not None else []


def _nvcc(flags: Optional[Sequence[str]]) -> List[str]:
    return ["--", *flags] if flags else []


def _typed_signatures() -> None:
    """Sets each function's ``__signature__`` from the option table (typed keyword-only options,
    ``Literal`` for choices): what help(), editors and inspect.signature show. The .pyi beside this
    package (scripts/gen_faces.py) states the same for type checkers."""
    own_kernel = ("size", "output_dir")  # sizes= (a dict) and output_dir= are the functions' own
    for fn, command, drop in ((env, "env", ()), (check, "check", own_kernel), (profile, "profile", own_kernel),
                              (run, "run", own_kernel), (compare, "compare", ("output",)),
                              (analyze, "analyze", ("output_dir",))):
        try:
            fn.__signature__ = _options.signature_of(fn, command, drop)  # type: ignore[attr-defined]
        except ImportError:  # a source tree without the extension module: the plain signatures
            return


_typed_signatures()
