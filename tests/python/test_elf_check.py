"""A kernel library's ELF header and symbols, read by kprof itself (src/kernel/elf_check.cpp, no
libelf) in the installed package: every wrong --so is an input error (exit 2) naming what is wrong,
before any GPU is looked for. The libraries are built here with the C compiler (the C++ suite's
tests/bad_inputs cases, through the wheel's console script), plus a damaged one."""

import os
import shutil
import subprocess

import pytest

from conftest import REPO, VADD, VADD_REF

SOURCES = {  # file: (source name, source, compiler arguments)
    "obj.o": ("obj.c", "int x(void) { return 1; }\n", ["-c"]),
    "exe": ("exe.c", "int main(void) { return 0; }\n", ["-no-pie"]),
    "nosolve.so": ("nosolve.c", "int helper(int x) { return x; }\n", ["-shared", "-fPIC"]),
    "static.so": ("static.c", "static void solve(float* a) { a[0] = 1; }\nvoid entry(float* a) { solve(a); }\n",
                  ["-shared", "-fPIC", "-O0"]),
    "hidden.so": ("hidden.c", '__attribute__((visibility("hidden"))) void solve(float* a) { a[0] = 1; }\n',
                  ["-shared", "-fPIC"]),
    "undefined.so": ("undefined.c", "void solve(float* a);\nvoid entry(float* a) { solve(a); }\n",
                     ["-shared", "-fPIC"]),
    "good.so": ("good.c", "void solve(const float* a, const float* b, float* c, int n) { (void)a; (void)b;"
                " (void)c; (void)n; }\n", ["-shared", "-fPIC"]),
}

CASES = [
    ("libs/not_elf.so", "is not a shared library: not an ELF file (it starts with \"this is a text"),
    ("libs/script.so", 'it starts with "#!/bin/sh"'),
    ("libs/empty.so", "is empty (0 bytes)"),
    ("obj.o", "is an object file (.o), not a shared library"),
    ("exe", "is an executable, not a shared library"),
    ("nosolve.so", "has no symbol `solve`"),
    ("static.so", "defines `solve` but does not export it"),
    ("hidden.so", "defines `solve` but does not export it"),
    ("undefined.so", "uses a `solve` it does not define"),
    ("aarch64.so", "is built for aarch64"),
    ("truncated.so", "has a damaged ELF header"),
]


@pytest.fixture(scope="module")
def libs(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler to build the test libraries")
    d = tmp_path_factory.mktemp("elf")
    for out, (src, text, args) in SOURCES.items():
        (d / src).write_text(text)
        subprocess.run([cc, *args, "-o", str(d / out), str(d / src)], check=True)
    data = bytearray((d / "nosolve.so").read_bytes())
    data[18:20] = (183).to_bytes(2, "little")  # e_machine EM_AARCH64
    (d / "aarch64.so").write_bytes(bytes(data))
    (d / "truncated.so").write_bytes(bytes(data[:40]))  # the ELF magic, then the header cut short
    return d


@pytest.mark.parametrize("name,expected", CASES, ids=[c[0] for c in CASES])
def test_a_wrong_library_is_an_input_error(kprof_script, libs, tmp_path, name, expected):
    path = os.path.join(REPO, "tests", "bad_inputs", name) if name.startswith("libs/") else str(libs / name)
    r = subprocess.run([kprof_script, "check", VADD, "--ref", VADD_REF, "--N=8", "--so", path],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    out = r.stdout + r.stderr
    assert r.returncode == 2, out
    assert expected in out, out


def test_a_library_exporting_solve_passes_the_file_check(kprof_script, libs, tmp_path):
    """good.so exports solve: the file check passes and kprof goes on to the GPU, which this CPU
    machine lacks (exit 1, the no-GPU line), not to an input error."""
    r = subprocess.run([kprof_script, "check", VADD, "--ref", VADD_REF, "--N=8", "--so", str(libs / "good.so")],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    out = r.stdout + r.stderr
    if "no CUDA driver/GPU" not in out:
        pytest.skip("a GPU or driver is present: the check ran further")
    assert r.returncode == 1, out
    assert "kernel library" not in out, out
