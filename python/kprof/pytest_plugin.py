"""kprof's pytest plugin (entry point ``pytest11: kprof``): a kernel's correctness and speed as a test.

The ``kprof_gate`` fixture runs ``kprof run`` on one kernel (checked against ref.py), then re-times
the saved baseline's kernel BESIDE it with ``kprof run BASELINE KERNEL --decide --min-gain PCT``:
interleaved rounds, the per-round paired ratio, the keep / revert rule of ``--decide``
(docs/METHOD.md). Two saved runs cannot support a decision (a run differs from another by more than
its own samples say), so the gate never decides from saved times alone. The test fails when the
kernel is wrong, or when the decision is ``revert``: slower than the baseline beyond
``--kprof-fail-if-slower`` percent (default 5), or not correct.

    def test_softmax_speed(kprof_gate):
        kprof_gate("softmax.cu", "ref.py", {"N": 4096, "D": 1024},
                   sizes={"input": "N*D", "output": "N*D"}, build=True)

``pytest --kprof-save-baseline`` writes the baselines (``.kprof-baselines/`` under pytest's
rootdir, or ``--kprof-baseline-dir``), one folder per machine key: the GPU's name, the driver
version and whether the SM clock is locked, so a baseline from another GPU or driver is reported
and never compared. A baseline keeps what re-timing needs (``retime/``: the kernel file, and for a
``.py`` kernel the ``.py`` files beside it that it may import; for a ``.cu`` its headers; ref.py;
``retime.json`` with dims, sizes, seed and options). A baseline saved without them (every baseline
saved before this rule) is re-timed from its kernel's recorded path when that file is still at hand,
and otherwise fails with the command that saves a re-timable one: it never passes silently.
Without a GPU the test skips with kprof's reason, after kprof's input checks (a ref.py without
``reference``, a kernel library not built: these fail the test, as they would on the GPU); without
ncu too when profiling was asked for (``no_ncu=False``; the gate times only by default). The
terminal summary names the skipped gate tests' reasons and says that no baseline was saved or
compared.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional

import pytest

from kprof._views import RunReport

#: The default of --kprof-fail-if-slower: a 5% margin, as sglang's nightly kernel baselines use.
DEFAULT_FAIL_IF_SLOWER_PCT = 5.0


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kprof", "kprof: GPU kernel correctness and speed gates")
    group.addoption("--kprof-save-baseline", action="store_true", default=False,
                    help="run the kprof_gate tests and save their results as this machine's baselines")
    group.addoption("--kprof-baseline-dir", default=None, metavar="DIR",
                    help="folder of the saved baselines (default: .kprof-baselines under pytest's rootdir)")
    group.addoption("--kprof-fail-if-slower", type=float, default=None, metavar="PCT",
                    help=f"fail when slower than the baseline beyond noise and by more than PCT %% "
                         f"(default {DEFAULT_FAIL_IF_SLOWER_PCT:g})")
    parser.addini("kprof_baseline_dir", "folder of kprof_gate's saved baselines", default=None)
    parser.addini("kprof_fail_if_slower", "kprof_gate's margin in percent", default=None)


def machine_key(env_report: Mapping[str, Any]) -> str:
    """The folder name of a machine's baselines: GPU name, driver version, clock state
    ("NVIDIA_H200__driver-580.159.04__clocks-unlocked"), from env_check.json."""
    gpu = env_report.get("gpu") or {}
    name = str(gpu.get("name") or "unknown-gpu")
    driver = str(gpu.get("driver_version") or gpu.get("driver") or "unknown")
    reasons = gpu.get("clock_event_reasons")  # NVML's bit mask: 0x2 = application / locked clocks
    clocks = "clocks-unknown" if not isinstance(reasons, int) else (
        "clocks-locked" if reasons & 0x2 else "clocks-unlocked")
    return "__".join(re.sub(r"[^A-Za-z0-9.-]+", "_", part).strip("_") for part in (name, "driver-" + driver, clocks))


def gpu_missing_reason(env_report: Mapping[str, Any]) -> Optional[str]:
    """Why there is no usable GPU according to env_check.json, or None when there is one."""
    gpu = env_report.get("gpu") or {}
    if gpu.get("available"):
        return None
    return str(gpu.get("error") or "no CUDA GPU is visible")


def ncu_missing_reason(env_report: Mapping[str, Any]) -> Optional[str]:
    """Why ncu cannot profile according to env_check.json, or None when it can."""
    for item in env_report.get("items") or []:
        if str(item.get("name", "")).startswith("ncu") and item.get("status") in ("FAIL", "fail", "skip"):
            return f"{item.get('name')}: {item.get('detail') or item.get('value') or item.get('status')}"
    return None


@dataclass
class GateResult:
    """What one kprof_gate call found: the run's report, the comparison (None when none was made)
    and the baseline folder used or written."""

    run: Dict[str, Any]
    comparison: Optional[Dict[str, Any]]
    baseline: str
    saved: bool


#: What a baseline folder keeps for re-timing (retime.json's format version).
RETIME_FORMAT = 1
#: The suffixes copied beside a saved kernel: what a .py kernel may import, a .cu kernel's headers.
_BESIDE = {".py": (".py",), ".cu": (".cuh", ".h", ".hpp", ".inl")}


def save_retime(folder: str, kernel: str, ref: str, dims: Optional[Mapping[str, Any]],
                options: Mapping[str, Any]) -> Dict[str, Any]:
    """Copies what re-timing needs into ``folder/retime/``: the kernel file (named
    ``baseline__<name>`` so it never shares a version folder with the candidate), for a .py kernel
    the .py files beside it (its local imports), for a .cu kernel the headers beside it, and ref.py;
    writes ``retime.json`` (dims, options with sizes and seed). Returns retime.json's content."""
    where = os.path.join(folder, "retime")
    os.makedirs(where, exist_ok=True)
    src_dir = os.path.dirname(os.path.abspath(kernel))
    base_name = "baseline__" + os.path.basename(kernel)
    shutil.copy2(kernel, os.path.join(where, base_name))
    suffix = os.path.splitext(kernel)[1]
    for other in sorted(os.listdir(src_dir)):
        path = os.path.join(src_dir, other)
        if (os.path.isfile(path) and os.path.splitext(other)[1] in _BESIDE.get(suffix, ())
                and os.path.abspath(path) != os.path.abspath(kernel) and os.path.abspath(path) != os.path.abspath(ref)):
            shutil.copy2(path, os.path.join(where, other))
    shutil.copy2(ref, os.path.join(where, "ref.py"))
    spec = {"format": RETIME_FORMAT, "kernel": base_name, "ref": "ref.py", "dims": dict(dims or {}),
            "options": {k: v for k, v in options.items() if isinstance(v, (str, int, float, bool, list, dict))
                        or v is None}}
    with open(os.path.join(folder, "retime.json"), "w", encoding="utf-8") as f:
        json.dump(spec, f, indent=2, sort_keys=True)
    return spec


@dataclass
class RetimeSource:
    """The baseline kernel the gate re-times: ``kernel`` (None when none is at hand), the ref.py to
    use, how it was found ("saved" or "recorded path") and, when none, why."""

    kernel: Optional[str]
    ref: Optional[str]
    how: str
    why_not: str = ""


def retime_source(folder: str, ref: str) -> RetimeSource:
    """The baseline's kernel: the saved copy (retime.json), else the kernel path its comparison.json
    recorded when that file still exists (re-timed with the current ref.py), else none with why."""
    spec_path = os.path.join(folder, "retime.json")
    if os.path.exists(spec_path):
        with open(spec_path, encoding="utf-8") as f:
            spec = json.load(f)
        kernel = os.path.join(folder, "retime", str(spec.get("kernel", "")))
        saved_ref = os.path.join(folder, "retime", str(spec.get("ref", "ref.py")))
        if os.path.isfile(kernel):
            return RetimeSource(kernel, saved_ref if os.path.isfile(saved_ref) else ref, "saved")
        return RetimeSource(None, None, "saved", f"{kernel} is missing from the saved baseline")
    recorded = ""
    try:
        with open(os.path.join(folder, "comparison.json"), encoding="utf-8") as f:
            versions = json.load(f).get("versions") or []
        recorded = str(versions[0].get("kernel") or "") if versions else ""
    except (OSError, ValueError):
        pass
    if recorded and os.path.isfile(recorded):
        return RetimeSource(recorded, ref, "recorded path")
    return RetimeSource(None, None, "recorded path",
                        "the baseline was saved without its kernel (only its times)"
                        + (f" and {recorded} is no longer at hand" if recorded else ""))


def retime(source: RetimeSource, kernel: str, dims: Optional[Mapping[str, Any]], output_dir: str,
           fail_if_slower_pct: float, options: Mapping[str, Any]) -> Dict[str, Any]:
    """``kprof run BASELINE KERNEL --decide --min-gain PCT``: the baseline's kernel re-timed beside
    the candidate in interleaved rounds. Returns {"failed": bool, "decision": the candidate's
    decision block (or None), "reason": words, "report": comparison.json}."""
    import kprof

    opts = dict(options)
    opts.pop("no_ncu", None)
    report = kprof.run([source.kernel, kernel], source.ref, dims, output_dir=output_dir, progress=False,
                       decide=True, min_gain=fail_if_slower_pct, **opts)
    block = report.get("decision") or {}
    decided = block.get("versions") or []
    if block.get("not_run") or not decided:
        why = block.get("not_run") or (report.error or {}).get("message") or f"exit {report.exit_code}"
        return {"failed": True, "decision": None, "report": dict(report),
                "reason": f"the baseline could not be re-timed beside the kernel: {why}"}
    d = decided[0]
    failed = d.get("decision") == "revert"
    return {"failed": failed, "decision": d, "report": dict(report),
            "reason": f"{d.get('decision')}: {d.get('reason')}"}


def not_retimable_text(folder: str, source: RetimeSource, nodeid: str) -> str:
    """The failure of a baseline that cannot be re-timed, with the command that saves one that can."""
    return (f"kprof: the baseline in {folder} cannot be re-timed: {source.why_not}. Saved times alone cannot "
            f"decide a regression (runs differ from each other more than their samples say). Save a re-timable "
            f"baseline (it keeps the kernel, ref.py, dims and seed): pytest --kprof-save-baseline '{nodeid}'")


class KprofGate:
    """The callable behind the ``kprof_gate`` fixture (one per test)."""

    def __init__(self, request: pytest.FixtureRequest, tmp_dir: str):
        self._request = request
        self._tmp = tmp_dir
        config = request.config
        self.save = bool(config.getoption("--kprof-save-baseline"))
        root = str(config.rootpath)
        self.baseline_root = (config.getoption("--kprof-baseline-dir") or config.getini("kprof_baseline_dir")
                              or os.path.join(root, ".kprof-baselines"))
        pct = config.getoption("--kprof-fail-if-slower")
        if pct is None:
            ini = config.getini("kprof_fail_if_slower")
            pct = float(ini) if ini else DEFAULT_FAIL_IF_SLOWER_PCT
        self.fail_if_slower_pct = float(pct)

    def _skip(self, reason: str) -> None:
        """Skips the test with kprof's reason, kept for the terminal summary (pytest_terminal_summary)."""
        _skipped(self._request.config).append(reason)
        pytest.skip(f"kprof: {reason}")

    def _test_folder(self, name: Optional[str]) -> str:
        node = re.sub(r"[^A-Za-z0-9_.-]+", "_", self._request.node.nodeid).strip("_")
        return node + ("__" + re.sub(r"[^A-Za-z0-9_.-]+", "_", name) if name else "")

    def __call__(self, kernel: str, ref: str, dims: Optional[Mapping[str, Any]] = None, *, name: Optional[str] = None,
                 fail_if_slower: Optional[float] = None, **options: Any) -> GateResult:
        """Checks and times ``kernel`` with ``kprof run`` (``options`` as kprof.run's), then passes,
        fails against the baseline, saves it (--kprof-save-baseline) or skips with the reason."""
        import kprof

        options.setdefault("no_ncu", True)
        # A misspelt option or a missing file is a test failure on every machine, GPU or not.
        _fail_on_usage_error(lambda: kprof._api._validate(kprof._api.run_argv([kernel], ref, dims, **options)))
        env_report = _session_env(self._request.config)
        why = gpu_missing_reason(env_report)
        if why:
            # What `kprof run` refuses before the GPU (a ref.py without reference, a kernel library
            # not built, a bad solve() signature) fails here too: the run stops at its input checks
            # (exit 2) or at the environment check (no GPU, exit 1), which then skips.
            _fail_on_usage_error(lambda: kprof.run([kernel], ref, dims, output_dir=os.path.join(self._tmp, "inputs"),
                                                   progress=False, **options))
            self._skip(f"no GPU: {why}")
        if not options.get("no_ncu"):
            why = ncu_missing_reason(env_report)
            if why:
                self._skip(f"ncu cannot profile: {why}")
        run_dir = os.path.join(self._tmp, "run")
        report = kprof.run([kernel], ref, dims, output_dir=run_dir, progress=False, **options)
        versions = RunReport.from_json(report).versions  # typed view of comparison.json (kprof._views)
        if report.exit_code != 0 or not versions or not versions[0].correct:
            reason = (versions[0].status_reason if versions else None) or (report.error or {}).get("message")
            pytest.fail(f"kprof: {kernel} failed its check or run (exit {report.exit_code}): {reason}\n"
                        + "\n".join(report.stderr_tail[-15:]), pytrace=False)
        key = machine_key(_run_env(run_dir) or env_report)
        folder = os.path.join(self.baseline_root, key, self._test_folder(name))
        if self.save:
            save_baseline(run_dir, folder)
            save_retime(folder, kernel, ref, dims, options)
            return GateResult(dict(report), None, folder, True)
        if not os.path.exists(os.path.join(folder, "comparison.json")):
            others = other_machines(self.baseline_root, key, self._test_folder(name))
            if others:
                self._skip(f"the baseline of this test is from another machine ({', '.join(others)}), "
                           f"not compared on {key}; run pytest --kprof-save-baseline here to save one")
            self._skip(f"no baseline for {key} in {self.baseline_root}; run pytest --kprof-save-baseline")
        pct = self.fail_if_slower_pct if fail_if_slower is None else float(fail_if_slower)
        source = retime_source(folder, ref)
        if source.kernel is None:
            pytest.fail(not_retimable_text(folder, source, self._request.node.nodeid), pytrace=False)
        comparison = retime(source, kernel, dims, os.path.join(self._tmp, "retime"), pct, options)
        if comparison["failed"]:
            pytest.fail(f"kprof: {kernel} against its baseline ({folder}, re-timed from its {source.how}) "
                        f"beside it: {comparison['reason']}", pytrace=False)
        return GateResult(dict(report), comparison, folder, False)


def _fail_on_usage_error(call: Any) -> None:
    """Runs ``call``; kprof's UsageError (exit 2: a bad option, a missing file, a broken ref.py) fails
    the test with kprof's message and hint, without a traceback of the plugin."""
    import kprof

    try:
        call()
    except kprof.UsageError as e:
        pytest.fail(f"kprof: UsageError: {e}", pytrace=False)


def _skipped(config: pytest.Config) -> List[str]:
    """The reasons of this session's skipped kprof_gate tests, one per test."""
    if not hasattr(config, "_kprof_skipped"):
        config._kprof_skipped = []  # type: ignore[attr-defined]
    return config._kprof_skipped  # type: ignore[attr-defined]


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """Says, without -rs, that kprof_gate tests were skipped, why, and that no baseline was saved
    (--kprof-save-baseline) or compared: "1 skipped" alone reads as if a baseline had been saved."""
    reasons = _skipped(config)
    if not reasons:
        return
    what = ("no baseline was saved" if config.getoption("--kprof-save-baseline")
            else "nothing was compared with a baseline")
    terminalreporter.write_sep("-", "kprof")
    for reason in dict.fromkeys(reasons):  # each reason once, in order, with its count
        n = reasons.count(reason)
        terminalreporter.write_line(f"kprof: {n} kprof_gate test{'s' if n > 1 else ''} skipped ({reason}): {what}")


def _gate_signature() -> None:
    """``kprof_gate(...)``'s typed signature: kprof.run's options from the option table (kprof._options),
    with the gate's own rule that it times only (no_ncu=True) unless profiling is asked for."""
    from kprof import _options

    try:
        sig = _options.signature_of(KprofGate.__call__, "run", drop=("size", "output_dir"))
    except ImportError:  # a source tree without the extension module
        return
    params = [p.replace(default=True) if p.name == "no_ncu" else p for p in sig.parameters.values()]
    KprofGate.__call__.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]


_gate_signature()


def save_baseline(run_dir: str, folder: str) -> None:
    """Copies a run's comparison.json (with its per-call samples), comparison.md and env_check.json
    into the baseline folder, replacing an older baseline whole."""
    tmp = folder + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    for name in ("comparison.json", "comparison.md", "env_check.json", "env_check.md"):
        src = os.path.join(run_dir, name)
        if os.path.exists(src):
            shutil.copy2(src, tmp)
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(tmp, folder)


def other_machines(root: str, key: str, test_folder: str) -> List[str]:
    """The machine keys under ``root`` other than ``key`` that hold a baseline of ``test_folder``."""
    try:
        keys = sorted(os.listdir(root))
    except OSError:
        return []
    return [k for k in keys if k != key and os.path.exists(os.path.join(root, k, test_folder, "comparison.json"))]


def _run_env(run_dir: str) -> Optional[Dict[str, Any]]:
    try:
        with open(os.path.join(run_dir, "env_check.json"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _session_env(config: pytest.Config) -> Dict[str, Any]:
    cached = getattr(config, "_kprof_env", None)
    if cached is None:
        import kprof

        out = os.path.join(tempfile.mkdtemp(prefix="kprof-env-"), "env_check.md")
        try:
            cached = dict(kprof.env(output=out))
        except kprof.KprofError as e:
            cached = {"gpu": {"available": False, "error": f"kprof env failed: {e}"}}
        config._kprof_env = cached  # type: ignore[attr-defined]
    return cached


@pytest.fixture
def kprof_gate(request: pytest.FixtureRequest, tmp_path) -> KprofGate:
    """A callable ``kprof_gate(kernel, ref, dims, *, name=None, fail_if_slower=None, **options)``:
    the kernel must be correct and not slower than this machine's saved baseline, re-timed beside
    it in interleaved rounds, beyond the margin (the revert of ``kprof run --decide``)."""
    return KprofGate(request, str(tmp_path))
