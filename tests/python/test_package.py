"""The installed package: the console script, the extension's links, `python -m kprof`."""

import glob
import os
import subprocess
import sys
import time

import kprof
from conftest import COPY_CSV, VADD


def core_path():
    return glob.glob(os.path.join(os.path.dirname(kprof.__file__), "_core*.so"))[0]


def test_version_matches_the_package(kprof_script):
    r = subprocess.run([kprof_script, "--version"], capture_output=True, text=True)
    assert r.returncode == 0
    assert r.stdout.strip() == f"kprof {kprof.__version__}"
    # The C++ core answers the same (the flag is parsed by it when not the only word).
    code = "from kprof import _host; c = _host.prepare(False); print(c.__version__)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.stdout.strip() == kprof.__version__, r.stderr


def test_extension_links_no_libpython_and_no_cupti():
    needed = subprocess.run(["readelf", "-d", core_path()], capture_output=True, text=True).stdout
    lines = [ln for ln in needed.splitlines() if "(NEEDED)" in ln]
    assert lines, needed
    assert not [ln for ln in lines if "libpython" in ln], lines
    assert not [ln for ln in lines if "libcupti" in ln or "libcuda.so" in ln or "libnvidia-ml" in ln], lines


def test_help_and_usage_errors_through_the_console_script(kprof_script):
    r = subprocess.run([kprof_script, "profile", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "--noise-target" in r.stdout
    r = subprocess.run([kprof_script, "frobnicate"], capture_output=True, text=True)
    assert r.returncode == 2
    assert "unknown command 'frobnicate'" in r.stderr and "hint:" in r.stderr
    r = subprocess.run([kprof_script, "profile", VADD, "--iters", "2.5"], capture_output=True, text=True)
    assert r.returncode == 2 and "--iters: must be an integer, got '2.5'" in r.stderr, r.stderr


def test_mcp_command_line(kprof_script):
    r = subprocess.run([kprof_script, "mcp", "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "MCP tools" in r.stdout
    r = subprocess.run([kprof_script, "mcp", "--bogus"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "takes no options" in r.stderr and "hint:" in r.stderr


def test_analyze_through_the_console_script(kprof_script, tmp_path):
    r = subprocess.run([kprof_script, "analyze", COPY_CSV, "-o", str(tmp_path), "--no-roofline"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "Memory-Bound" in r.stdout or "memory" in r.stdout.lower(), r.stdout
    assert (tmp_path / "ncu_summary.md").exists()


def test_python_dash_m_is_the_same_command(tmp_path):
    r = subprocess.run([sys.executable, "-m", "kprof", "analyze", COPY_CSV, "-o", str(tmp_path), "--json",
                        "--no-roofline"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert '"schema_version": 2' in r.stdout


def test_no_gpu_is_said_plainly(kprof_script, tmp_path):
    """On a machine without a GPU kprof starts and says so (exit 1: not ready), no traceback."""
    r = subprocess.run([kprof_script, "env", "-o", str(tmp_path / "env_check.md")], capture_output=True, text=True,
                       timeout=300)
    if r.returncode == 0:
        return  # a ready GPU machine
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert "GPU" in r.stdout + r.stderr


def test_import_is_fast():
    """`import kprof` loads no C++ and no CUDA: well under a second on a 2-core machine."""
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", "import kprof, sys; assert 'kprof._core' not in sys.modules"],
                       capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    assert r.returncode == 0, r.stderr
    assert elapsed < 2.0, elapsed


def test_mcp_without_the_sdk_says_how_to_install_it():
    """`pip install kprof` without the [mcp] extra, then `kprof mcp`: one message naming the extra,
    exit 2 (a setup error, as a missing ncu_report is), no traceback. The SDK is hidden from the
    child (None in sys.modules makes its import fail as a missing module does)."""
    code = ("import sys; sys.modules['anyio'] = None; sys.modules['mcp'] = None\n"
            "from kprof.__main__ import main; main(['mcp'])")
    r = subprocess.run([sys.executable, "-c", code], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    assert 'pip install "kprof[mcp]"' in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert lines[0].startswith("error: kprof mcp needs the MCP Python SDK") and len(lines) <= 2, lines
    assert r.stdout == ""  # stdout is the protocol's: nothing a client would read as a message
