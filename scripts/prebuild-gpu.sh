#!/usr/bin/env bash
# Builds kprof (and its test binary) on this machine for the GPU machine's Python, so a device call
# need not build (about 3 minutes of device time each): the H200 image runs Python 3.12 (its
# libpython3.12.so.1.0 in /lib/x86_64-linux-gnu) on glibc 2.39, newer than this machine's 2.36, so
# a binary linked here against a Python 3.12 runs there. tests/gpu/run.sh uses .prebuilt/kprof when
# it starts there and builds otherwise.
#   scripts/prebuild-gpu.sh [PYTHON3.12]    (default: pyenv's 3.12; needs `pip install pybind11` in it)
# No precompiled header (as tests/gpu/run.sh builds there): a missing #include fails here, not in
# device time. Writes build-py312/ (the build) and .prebuilt/kprof, .prebuilt/kprof_tests (stripped: carry
# .prebuilt in the device call) with .prebuilt/source.sha1, the stamp of the sources they were built
# from (scripts/source-stamp.sh). Nothing here is committed (.gitignore).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=${1:-$HOME/.pyenv/versions/3.12.1/bin/python3.12}
[ -x "$py" ] || { echo "no Python 3.12 at $py: give its path" >&2; exit 2; }
pyb=$("$py" -m pybind11 --cmakedir) || { echo "pybind11 missing: $py -m pip install pybind11" >&2; exit 2; }
cmake -S "$root" -B "$root/build-py312" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPython3_EXECUTABLE="$py" \
  -Dpybind11_DIR="$pyb" -DCMAKE_CUDA_ARCHITECTURES=90 -DKPROF_PCH=OFF > /dev/null
cmake --build "$root/build-py312" -j"$(nproc)" --target kprof kprof_tests
mkdir -p "$root/.prebuilt"
strip -o "$root/.prebuilt/kprof" "$root/build-py312/kprof"
strip -o "$root/.prebuilt/kprof_tests" "$root/build-py312/tests/kprof_tests"
# What they were built from: tests/gpu/run.sh builds instead when the sources differ there.
bash "$root/scripts/source-stamp.sh" > "$root/.prebuilt/source.sha1"
du -sh "$root/.prebuilt"/*
