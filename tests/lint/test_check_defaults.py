#!/usr/bin/env python3
"""scripts/check_defaults.py on planted trees: a clean tree passes; a second statement of a
default fails and is listed; equal values under other names (the 60 s timeouts) are told apart."""
import os
import subprocess
import sys
import tempfile

CLEAN = {
    "src/stages/timing/timing.hpp": "inline constexpr double kDefaultWarmupMs = 100;\n"
                                    "inline constexpr double kDefaultClockFloorFrac = 0.75;\n"
                                    "inline constexpr int kDefaultInputSets = 3;\n",
    "src/stages/timing/noise.hpp": "inline constexpr double kDefaultNoiseTarget = 0.005;\n",
    "src/stages/ncu/runner.hpp": 'inline constexpr const char* kDefaultMetricSet = "kprof";\n'
                                 "inline constexpr double kDefaultNcuTimeoutS = 900;\n",
    "src/stages/ncu/session.hpp": "inline constexpr bool kDefaultOneNcuSession = true;\n",
    "src/stages/analysis/hot_lines.hpp": "inline constexpr size_t kDefaultHotLinesTop = 10;\n",
    "src/stages/env/env_check.hpp": "inline constexpr double kDefaultEnvProbeTimeoutS = 60;\n"
                                    "  double timeout_s = kDefaultEnvProbeTimeoutS;\n",
    "src/stages/verify/check.hpp": "inline constexpr int kDefaultTrials = 2;\n",
    "src/kernel/kernel_spec.hpp": "inline constexpr uint64_t kDefaultSeed = 42;\n"
                                  "inline constexpr double kDefaultCallTimeoutS = 60.0;\n",
    "src/kernel/build.hpp": "inline constexpr double kDefaultNvccTimeoutS = 600;\n",
    "src/device/gpu_index.hpp": "inline constexpr int kDefaultGpu = 0;\n",
    "src/flows/worker.cpp": "  for (auto& v : versions) v.gpu = 0;  // not a default: an assignment\n",
    "python/kprof/_api.py": "def env(*, gpu: int = GPU_DEFAULT): pass\n",
}


def run(script, files):
    root = tempfile.mkdtemp(prefix="kprof_defaults_")
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    p = subprocess.run([sys.executable, script, root], capture_output=True, text=True)
    return p.returncode, p.stdout


def main():
    script = os.path.join(sys.argv[1], "check_defaults.py")
    failures = []
    rc, out = run(script, CLEAN)
    if rc != 0:
        failures.append("clean tree failed:\n" + out)
    cases = {
        "a CLI struct restating the warm-up": (
            {"src/cli/kernel_options.hpp": "  double warmup_ms = 100;\n"}, "BAD 2 place(s): warm-up 100 ms"),
        "a Python default for --top": (
            {"python/kprof/mcp_server.py": "def analyze(report: str, top: int = 10): pass\n"},
            "BAD 2 place(s): top 10 hot lines"),
        "the env timeout restated in the env stage": (
            {"src/stages/env/env_check.hpp": CLEAN["src/stages/env/env_check.hpp"] + "  double timeout_s = 60;\n"},
            "BAD 2 place(s): env probe timeout 60 s", "call timeout 60 s"),
        "the call timeout restated in the kernel spec": (
            {"src/kernel/kernel_spec.hpp": CLEAN["src/kernel/kernel_spec.hpp"] + "  double timeout_s = 60.0;\n"},
            "BAD 2 place(s): call timeout 60 s", "env probe timeout 60 s"),
        "a help text stating the ncu timeout": (
            {"src/cli/x.cpp": 'add("--ncu-timeout", ncu_timeout_s, "seconds (default 900)");\n'},
            "BAD 2 place(s): ncu timeout 900 s"),
    }
    for name, (extra, expect, *other) in cases.items():
        rc, out = run(script, {**CLEAN, **extra})
        if rc != 1 or expect not in out:
            failures.append(f"{name}: exit {rc}, expected 1 with '{expect}':\n{out}")
        # the equal value of the other 60 s timeout stays counted once: told apart by its name
        if other and "ok  1 place(s): " + other[0] not in out:
            failures.append(f"{name}: {other[0]} was not told apart:\n{out}")
    for f in failures:
        print("FAIL", f)
    print(f"{len(cases) + 1 - len(failures)} of {len(cases) + 1} default-check cases behave")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
