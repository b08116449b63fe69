"""The pytest plugin: kprof_gate skips with kprof's reason on a machine without a GPU; it re-times
the saved baseline's kernel beside the candidate (kprof run --decide, faked here: the GPU part is in
docs/gpu-runs.md), and a baseline that cannot be re-timed fails with the command that saves one."""

import json
import os
import random

import pytest

from kprof import pytest_plugin as plugin


def write_comparison(folder, median_ms, seed, n=60, name="softmax", spread=0.01, status="pass"):
    """A comparison.json of one version as `kprof run` writes it (schema_version 2, per-call kernel
    samples), its per-call times drawn around `median_ms` with `spread` relative noise (seeded)."""
    rng = random.Random(seed)
    samples = sorted(median_ms * (1 + rng.gauss(0, spread)) for _ in range(n))
    row = {"name": name, "kernel": name + ".cu", "status": status, "correct": status == "pass", "profiled": False,
           "time_ms": samples[n // 2], "time_samples_ms": samples, "kernel_ms": samples[n // 2],
           "kernel_samples_ms": samples, "kernel_source": "cupti"}
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(str(folder), "comparison.json")
    with open(path, "w") as f:
        json.dump({"schema_version": 2, "header": {"GPU": "NVIDIA H200", "Dimensions": "N=4096 D=1024"},
                   "versions": [row]}, f)
    return str(folder)


class FakeReport(dict):
    """What kprof.run returns (a dict with exit_code and error), for the fake below."""

    def __init__(self, content, exit_code=0):
        super().__init__(content)
        self.exit_code = exit_code
        self.error = None


def fake_run(decision, calls):
    """A kprof.run that records its call and answers `decision` for the candidate (None: no rounds)."""

    def run(kernels, ref, dims=None, **options):
        calls.append({"kernels": list(kernels), "ref": ref, "dims": dims, **options})
        block = {"not_run": "fewer than two correct versions", "versions": []} if decision is None else {
            "not_run": None, "versions": [{"name": "v1", "decision": decision, "reason": "slower by 9.8%"}]}
        return FakeReport({"decision": block, "versions": []})

    return run


def saved_baseline(tmp_path, kernel_text="// v1\n"):
    """A kernel folder (kernel, a header beside it, ref.py) and its baseline saved as the gate saves it."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "softmax.cu").write_text(kernel_text)
    (src / "util.cuh").write_text("// helper\n")
    (src / "ref.py").write_text("def reference(**kw):\n    pass\n")
    folder = tmp_path / "base" / "key" / "test"
    run = write_comparison(tmp_path / "run", 1.0, seed=1)
    plugin.save_baseline(run, str(folder))
    plugin.save_retime(str(folder), str(src / "softmax.cu"), str(src / "ref.py"), {"N": 4096}, {"seed": 7, "build": True})
    return src, folder


def test_a_saved_baseline_keeps_what_retiming_needs(tmp_path):
    src, folder = saved_baseline(tmp_path)
    assert sorted(os.listdir(folder / "retime")) == ["baseline__softmax.cu", "ref.py", "util.cuh"]
    spec = json.loads((folder / "retime.json").read_text())
    assert spec["dims"] == {"N": 4096} and spec["options"] == {"seed": 7, "build": True}
    source = plugin.retime_source(str(folder), str(src / "ref.py"))
    assert source.how == "saved" and source.kernel.endswith("retime/baseline__softmax.cu")


def test_the_gate_retimes_the_baseline_beside_the_candidate_and_fails_on_revert(tmp_path, monkeypatch):
    import kprof

    src, folder = saved_baseline(tmp_path)
    source = plugin.retime_source(str(folder), str(src / "ref.py"))
    calls = []
    monkeypatch.setattr(kprof, "run", fake_run("revert", calls))
    out = plugin.retime(source, str(src / "softmax.cu"), {"N": 4096}, str(tmp_path / "o"), 5.0, {"no_ncu": True})
    assert out["failed"] and "revert" in out["reason"]
    assert calls[0]["kernels"] == [source.kernel, str(src / "softmax.cu")]
    assert calls[0]["decide"] is True and calls[0]["min_gain"] == 5.0 and "no_ncu" not in calls[0]
    for unchanged in ("inconclusive", "keep"):
        monkeypatch.setattr(kprof, "run", fake_run(unchanged, []))
        assert not plugin.retime(source, str(src / "softmax.cu"), None, str(tmp_path / "o"), 5.0, {})["failed"]
    # Rounds that could not run are a failure, never a pass.
    monkeypatch.setattr(kprof, "run", fake_run(None, []))
    out = plugin.retime(source, str(src / "softmax.cu"), None, str(tmp_path / "o"), 5.0, {})
    assert out["failed"] and "could not be re-timed" in out["reason"]


def test_a_baseline_saved_today_is_retimed_from_its_recorded_kernel_or_fails_with_the_command(tmp_path):
    # Saved without retime/ (as every baseline before issue 49): its comparison.json names softmax.cu.
    old = write_comparison(tmp_path / "old", 1.0, seed=3)
    src = tmp_path / "k"
    src.mkdir()
    kernel = src / "softmax.cu"
    kernel.write_text("// v1\n")
    data = json.loads((tmp_path / "old" / "comparison.json").read_text())
    data["versions"][0]["kernel"] = str(kernel)
    (tmp_path / "old" / "comparison.json").write_text(json.dumps(data))
    source = plugin.retime_source(old, "ref.py")
    assert source.kernel == str(kernel) and source.how == "recorded path"
    kernel.unlink()
    source = plugin.retime_source(old, "ref.py")
    assert source.kernel is None
    text = plugin.not_retimable_text(old, source, "tests/test_k.py::test_softmax")
    assert "cannot be re-timed" in text and "no longer at hand" in text
    assert "pytest --kprof-save-baseline 'tests/test_k.py::test_softmax'" in text


def test_machine_key_names_gpu_driver_and_clock_state():
    env = {"gpu": {"name": "NVIDIA H200", "driver_version": "580.159.04", "clock_event_reasons": 0x1}}
    assert plugin.machine_key(env) == "NVIDIA_H200__driver-580.159.04__clocks-unlocked"
    env["gpu"]["clock_event_reasons"] = 0x3
    assert plugin.machine_key(env).endswith("clocks-locked")
    assert plugin.machine_key({}).startswith("unknown-gpu")


def test_baselines_of_other_machines_are_found_not_used(tmp_path):
    write_comparison(tmp_path / "NVIDIA_H100__driver-570__clocks-unlocked" / "test_x", 1.0, seed=1)
    assert plugin.other_machines(str(tmp_path), "NVIDIA_H200__driver-580__clocks-unlocked", "test_x") == [
        "NVIDIA_H100__driver-570__clocks-unlocked"]
    assert plugin.other_machines(str(tmp_path), "NVIDIA_H100__driver-570__clocks-unlocked", "test_x") == []


def test_save_baseline_replaces_the_folder(tmp_path):
    run = write_comparison(tmp_path / "run", 1.0, seed=1)
    target = tmp_path / "b" / "key" / "test"
    plugin.save_baseline(run, str(target))
    plugin.save_baseline(run, str(target))
    assert sorted(os.listdir(target)) == ["comparison.json"]


def softmax_gate_test(pytester, ref=None, without_gpu=True):
    """A test file whose one test gates examples/softmax_versions/v1.cu (with ``ref``, default its
    ref.py). ``without_gpu``: skips the calling test where a GPU is ready (the gate would run there)."""
    import kprof

    if without_gpu and kprof.env(output=str(pytester.path / "env" / "env_check.md")).get("gpu", {}).get("available"):
        pytest.skip("this machine has a GPU: the gate would run")
    repo = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    ex = os.path.join(repo, "examples", "softmax_versions")
    ref = str(ref or os.path.join(ex, "ref.py"))
    pytester.makepyfile(test_gate=f"""
        def test_softmax(kprof_gate):
            kprof_gate({os.path.join(ex, 'v1.cu')!r}, {ref!r}, {{"N": 256, "D": 256}},
                       sizes={{"input": "N*D", "output": "N*D"}}, build=True)
    """)


def test_gate_skips_with_the_reason_without_a_gpu(pytester):
    softmax_gate_test(pytester)
    result = pytester.runpytest_subprocess("-rs")  # the plugin loads through its pytest11 entry point
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*kprof: no GPU:*"])


def test_gate_reports_a_misspelt_option_on_any_machine(pytester):
    """A typo in the gate's options is a test error even where the test would skip for want of a GPU."""
    repo = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    ex = os.path.join(repo, "examples", "softmax_versions")
    pytester.makepyfile(test_typo=f"""
        def test_softmax(kprof_gate):
            kprof_gate({os.path.join(ex, 'v1.cu')!r}, {os.path.join(ex, 'ref.py')!r}, {{"N": 256, "D": 256}},
                       warmup_msec=3)
    """)
    result = pytester.runpytest_subprocess("-rs")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*UsageError*warmup_msec*"])  # with the closest option, warmup_ms


def test_plugin_options_are_registered(pytester):
    result = pytester.runpytest_subprocess("--help")
    result.stdout.fnmatch_lines(["*--kprof-save-baseline*", "*--kprof-fail-if-slower*"])


def test_a_skipped_gate_says_in_the_summary_that_no_baseline_was_saved(pytester):
    """`pytest --kprof-save-baseline` on a machine without a GPU: the terminal summary says, without
    -rs, that the gate tests were skipped, why, and that no baseline was saved."""
    softmax_gate_test(pytester)
    result = pytester.runpytest_subprocess("--kprof-save-baseline")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*kprof: 1 kprof_gate test skipped (no GPU: *): no baseline was saved*"])
    result = pytester.runpytest_subprocess()
    result.stdout.fnmatch_lines(["*kprof: 1 kprof_gate test skipped (no GPU: *): nothing was compared with a "
                                 "baseline*"])


def test_a_gate_whose_ref_py_has_no_reference_fails_on_any_machine(pytester):
    """What `kprof check` refuses before the GPU (exit 2: ref.py defines no `reference`) fails the gate
    test, with kprof's message, also where the test would skip for want of a GPU."""
    ref = pytester.path / "ref.py"
    ref.write_text("def ref(**kwargs):\n    pass\n")
    softmax_gate_test(pytester, ref, without_gpu=False)
    result = pytester.runpytest_subprocess("-rs")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*defines no function `reference`*"])
    result.stdout.no_fnmatch_line("*Traceback*")
