"""The installed package on an older driver (issue 51): a stand-in libcuda.so.1 that reports CUDA 12.8
(tests/old_driver/libcuda_12080.c, built here with the C compiler) is loaded by the CUDA runtime inside
kprof through LD_LIBRARY_PATH. `import kprof` still works; `kprof env` and `kprof check` say in one line
what was found and what is needed, with the fix, and exit 1."""

import os
import shutil
import subprocess
import sys

import pytest

from conftest import REPO, VADD, VADD_REF

LINE = "driver R570.x supports CUDA 12.8; kprof's CUDA 13 runtime needs R580 or newer"


@pytest.fixture(scope="module")
def old_driver_env(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler to build the stand-in libcuda.so.1")
    d = tmp_path_factory.mktemp("old-driver")
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(d / "libcuda.so.1"),
                    os.path.join(REPO, "tests", "old_driver", "libcuda_12080.c")], check=True)
    # A kernel library exporting solve, so `check` passes its file checks and reaches the GPU.
    (d / "vadd.c").write_text("void solve(const float* a, const float* b, float* c, int n) {}\n")
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(d / "vadd.so"), str(d / "vadd.c")], check=True)
    return dict(os.environ, LD_LIBRARY_PATH=str(d), KPROF_TEST_SO=str(d / "vadd.so"))


def test_import_never_fails_because_of_the_driver(old_driver_env):
    r = subprocess.run([sys.executable, "-c", "import kprof; print(kprof.__version__)"],
                       env=old_driver_env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip()


@pytest.mark.parametrize("args", [["env"], ["check", VADD, "--ref", VADD_REF, "--N=8", "--so"]], ids=["env", "check"])
def test_gpu_commands_say_what_is_found_and_needed(kprof_script, old_driver_env, tmp_path, args):
    if args[-1] == "--so":
        args = args + [old_driver_env["KPROF_TEST_SO"]]
    r = subprocess.run([kprof_script, *args], env=old_driver_env, cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert LINE in out, out
    assert "Fix: update the NVIDIA driver to R580 or newer" in out, out
