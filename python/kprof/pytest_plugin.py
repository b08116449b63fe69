"""kprof's pytest plugin (entry point ``pytest11: kprof``): a kernel's correctness and speed as a test.

The ``kprof_gate`` fixture runs ``kprof run`` on one kernel (checked against ref.py, then timed to
kprof's noise target), and compares it with a saved baseline through ``kprof compare``'s verdicts:
the bootstrap interval of the ratio of medians over the saved per-call samples, never a threshold
on one sample. The test fails when the kernel is wrong, or slower than the baseline beyond noise
and by more than ``--kprof-fail-if-slower`` percent (default 5).

    def test_softmax_speed(kprof_gate):
        kprof_gate("softmax.cu", "ref.py", {"N": 4096, "D": 1024},
                   sizes={"input": "N*D", "output": "N*D"}, build=True)

``pytest --kprof-save-baseline`` writes the baselines (``.kprof-baselines/`` under pytest's
rootdir, or ``--kprof-baseline-dir``), one folder per machine key: the GPU's name, the driver
version and whether the SM clock is locked, so a baseline from another GPU or driver is reported
and never compared. Without a GPU the test skips with kprof's reason; without ncu too when
profiling was asked for (``no_ncu=False``; the gate times only by default).
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

from kprof._views import CompareReport, RunReport

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


def decide(baseline_dir: str, current: str, output_dir: str, fail_if_slower_pct: float) -> Dict[str, Any]:
    """kprof compare BASELINE CURRENT --fail-if-slower PCT: returns comparison.json with
    ``exit_code`` (1: slower beyond noise and PCT %, no longer correct, or missing)."""
    import kprof

    report = kprof.compare([baseline_dir, current], fail_if_slower=fail_if_slower_pct, output_dir=output_dir)
    out = dict(report)
    out["exit_code"] = report.exit_code
    return out


def failure_text(comparison: Mapping[str, Any], compare_dir: str) -> str:
    """The lines of comparison.md that say why the gate failed (else the JSON's gate block)."""
    md = os.path.join(compare_dir, "comparison.md")
    try:
        with open(md, encoding="utf-8") as f:
            text = f.read()
        return text if len(text) < 6000 else text[:6000] + "\n..."
    except OSError:
        gate = CompareReport.from_json(comparison).gate
        if gate is None:
            return "(no gate in comparison.json)"
        return "\n".join(f"{f.version} ({f.input}): {f.reason}" for f in gate.failures) or "(no failure listed)"


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

    def _test_folder(self, name: Optional[str]) -> str:
        node = re.sub(r"[^A-Za-z0-9_.-]+", "_", self._request.node.nodeid).strip("_")
        return node + ("__" + re.sub(r"[^A-Za-z0-9_.-]+", "_", name) if name else "")

    def __call__(self, kernel: str, ref: str, dims: Optional[Mapping[str, Any]] = None, *, name: Optional[str] = None,
                 fail_if_slower: Optional[float] = None, **options: Any) -> GateResult:
        """Checks and times ``kernel`` with ``kprof run`` (``options`` as kprof.run's), then passes,
        fails against the baseline, saves it (--kprof-save-baseline) or skips with the reason."""
        import kprof

        options.setdefault("no_ncu", True)
        # A misspelt option or a missing file is a test error on every machine, GPU or not.
        kprof._api._validate(kprof._api.run_argv([kernel], ref, dims, **options))
        env_report = _session_env(self._request.config)
        why = gpu_missing_reason(env_report)
        if why:
            pytest.skip(f"kprof: no GPU: {why}")
        if not options.get("no_ncu"):
            why = ncu_missing_reason(env_report)
            if why:
                pytest.skip(f"kprof: ncu cannot profile: {why}")
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
            return GateResult(dict(report), None, folder, True)
        if not os.path.exists(os.path.join(folder, "comparison.json")):
            others = other_machines(self.baseline_root, key, self._test_folder(name))
            if others:
                pytest.skip(f"kprof: the baseline of this test is from another machine ({', '.join(others)}), "
                            f"not compared on {key}; run pytest --kprof-save-baseline here to save one")
            pytest.skip(f"kprof: no baseline for {key} in {self.baseline_root}; run pytest --kprof-save-baseline")
        pct = self.fail_if_slower_pct if fail_if_slower is None else float(fail_if_slower)
        compare_dir = os.path.join(self._tmp, "compare")
        comparison = decide(folder, run_dir, compare_dir, pct)
        if CompareReport.from_json(comparison).exit_code != 0:
            pytest.fail(f"kprof: {kernel} is slower than its baseline ({folder}) beyond noise and {pct:g} %, "
                        f"or no longer correct:\n{failure_text(comparison, compare_dir)}", pytrace=False)
        return GateResult(dict(report), comparison, folder, False)


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
    the kernel must be correct and not slower than this machine's saved baseline beyond noise."""
    return KprofGate(request, str(tmp_path))
