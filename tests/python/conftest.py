"""Shared paths of the tests of the installed kprof package (tests/python/run.sh installs the wheel
into a fresh virtual environment first; these tests never import the source tree)."""

import os
import shutil
import subprocess
import sys

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(REPO, "tests", "data")
#: A real H200 export of a copy kernel (tests/data/ncu/README.md): analyze needs no GPU for it.
COPY_CSV = os.path.join(DATA, "ncu", "copy.raw.csv")
#: The bundled vector add (examples/cuda/vector_add): a real kernel file for the option parser.
VADD = os.path.join(REPO, "examples", "cuda", "vector_add", "vector_add.cu")
VADD_REF = os.path.join(REPO, "examples", "cuda", "vector_add", "ref.py")

pytest_plugins = ["pytester"]


@pytest.fixture(scope="session")
def kprof_script():
    """The console script the wheel installed beside this interpreter."""
    path = os.path.join(os.path.dirname(sys.executable), "kprof")
    if not os.path.exists(path):
        path = shutil.which("kprof")
    assert path, "the kprof console script is not installed"
    return path


def has_ncu_report() -> bool:
    return subprocess.run([sys.executable, "-c", "import ncu_report"], capture_output=True).returncode == 0
