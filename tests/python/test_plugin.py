"""The pytest plugin: kprof_gate skips with kprof's reason on a machine without a GPU, and its
decision is kprof compare's (the bootstrap of the ratio of medians over saved per-call samples)."""

import json
import os
import random

import pytest

from kprof import pytest_plugin as plugin


def write_comparison(folder, median_ms, seed, n=60, name="softmax", spread=0.01):
    """A comparison.json of one version as `kprof run` writes it (schema_version 2, per-call kernel
    samples), its per-call times drawn around `median_ms` with `spread` relative noise (seeded)."""
    rng = random.Random(seed)
    samples = sorted(median_ms * (1 + rng.gauss(0, spread)) for _ in range(n))
    row = {"name": name, "kernel": name + ".cu", "status": "pass", "correct": True, "profiled": False,
           "time_ms": samples[n // 2], "time_samples_ms": samples, "kernel_ms": samples[n // 2],
           "kernel_samples_ms": samples, "kernel_source": "cupti"}
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(str(folder), "comparison.json")
    with open(path, "w") as f:
        json.dump({"schema_version": 2, "header": {"GPU": "NVIDIA H200", "Dimensions": "N=4096 D=1024"},
                   "versions": [row]}, f)
    return str(folder)


def test_the_gate_passes_unchanged_and_fails_ten_percent_slower(tmp_path):
    base = write_comparison(tmp_path / "base", 15.62e-3, seed=11)
    same = write_comparison(tmp_path / "same", 15.62e-3, seed=12)
    slower = write_comparison(tmp_path / "slower", 15.62e-3 * 1.10, seed=13)
    assert plugin.decide(base, same, str(tmp_path / "c-same"), 5.0)["exit_code"] == 0
    failed = plugin.decide(base, slower, str(tmp_path / "c-slow"), 5.0)
    assert failed["exit_code"] == 1
    assert "softmax" in plugin.failure_text(failed, str(tmp_path / "c-slow"))
    # Within noise: 3% slower against a 5% margin is not a failure.
    within = write_comparison(tmp_path / "within", 15.62e-3 * 1.03, seed=14)
    assert plugin.decide(base, within, str(tmp_path / "c-within"), 5.0)["exit_code"] == 0


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


def test_gate_skips_with_the_reason_without_a_gpu(pytester):
    import kprof

    env = kprof.env(output=str(pytester.path / "env" / "env_check.md"))
    if env.get("gpu", {}).get("available"):
        pytest.skip("this machine has a GPU: the gate would run")
    repo = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    ex = os.path.join(repo, "examples", "softmax_versions")
    pytester.makepyfile(test_gate=f"""
        def test_softmax(kprof_gate):
            kprof_gate({os.path.join(ex, 'v1.cu')!r}, {os.path.join(ex, 'ref.py')!r}, {{"N": 256, "D": 256}},
                       sizes={{"input": "N*D", "output": "N*D"}}, build=True)
    """)
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
