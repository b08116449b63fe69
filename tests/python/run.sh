#!/usr/bin/env bash
# The tests of the installed package: installs a kprof wheel (dist/, from scripts/build-wheels.sh)
# into a fresh virtual environment of PYTHON (default: Debian's /usr/bin/python3, an interpreter
# that is not the one the C++ tests embed) with pip --no-index (no compiler, no build), then runs
# pytest tests/python against it. With --sdist, installs dist/kprof-VERSION.tar.gz instead (from
# scripts/make-sdist.sh): pip builds it (PyPI's scikit-build-core and pybind11, nvcc, CMake, the
# C++ compiler; no Debian -dev package is used: the sdist carries them in third_party/).
# Usage: bash tests/python/run.sh [--sdist] [PYTHON] [PYTEST ARGS...]
set -euo pipefail
cd "$(dirname "$0")/../.."
from=wheel
if [ "${1:-}" = "--sdist" ]; then from=sdist; shift; fi
py=${1:-/usr/bin/python3}
[ $# -gt 0 ] && shift
tag=$("$py" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
if [ "$from" = sdist ]; then
  pkg=$(ls -t dist/kprof-*.tar.gz 2>/dev/null | head -1 || true)
  [ -n "$pkg" ] || { echo "tests/python/run.sh: no sdist in dist/: run bash scripts/make-sdist.sh" >&2; exit 2; }
else
  pkg=$(ls -t dist/kprof-*-"$tag"-*manylinux*.whl 2>/dev/null | head -1 || true)
  if [ -z "$pkg" ]; then
    echo "tests/python/run.sh: no $tag manylinux wheel in dist/: run bash scripts/build-wheels.sh $py" >&2
    exit 2
  fi
fi
venv=build/pytest-venv-$tag-$from
rm -rf "$venv"
"$py" -m venv "$venv"
start=$(date +%s%N)
if [ "$from" = sdist ]; then
  if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi
  # The compiler's -H lists every header it opens: none may come from Debian's -dev packages of
  # kprof's dependencies (the sdist carries them), and libffi must be the sdist's.
  log=build/sdist-build-$tag.log
  # (-H also in nvcc's host compiler: the .cu files' headers.)
  if ! "$venv/bin/pip" install -v "$pkg" --config-settings=cmake.define.CMAKE_CXX_FLAGS=-H \
       --config-settings=cmake.define.CMAKE_CUDA_FLAGS=-Xcompiler=-H >"$log" 2>&1; then
    tail -40 "$log" >&2
    echo "tests/python/run.sh: building $(basename "$pkg") failed (whole log: $log)" >&2
    exit 1
  fi
  echo "tests/python/run.sh: built and installed $(basename "$pkg") in $(( ($(date +%s%N) - start) / 1000000000 )) s" >&2
  debian=$(grep -E '^[[:space:]]*\.+ /usr/include/(CLI|nlohmann|fmt|pybind11|x86_64-linux-gnu/ff[it])' "$log" | sort -u || true)
  if [ -n "$debian" ]; then
    echo "tests/python/run.sh: the sdist build used Debian's headers:" >&2
    echo "$debian" | head -20 >&2
    exit 1
  fi
  grep -q 'libffi .*third_party/lib/libffi_pic.a' "$log" ||
    { echo "tests/python/run.sh: the sdist build did not link the sdist's libffi_pic.a" >&2; exit 1; }
  echo "tests/python/run.sh: $(grep -cE '^[[:space:]]*\.+ /' "$log") header inclusions (-H), none from /usr/include/{CLI,nlohmann,fmt,pybind11,ffi*}; libffi from third_party/" >&2
else
  "$venv/bin/pip" install -q --no-index "$pkg"
  echo "tests/python/run.sh: installed $(basename "$pkg") in $(( ($(date +%s%N) - start) / 1000000 )) ms (pip --no-index)" >&2
fi
# pytest, and ncu-report for the .ncu-rep test when PyPI is reachable (that test skips without it).
"$venv/bin/pip" install -q "pytest>=7" || { echo "tests/python/run.sh: pytest could not be installed" >&2; exit 2; }
"$venv/bin/pip" install -q "ncu-report==2026.3.1" 2>/dev/null || echo "tests/python/run.sh: no ncu-report (its test skips)" >&2
"$venv/bin/pip" install -q "mcp>=2,<3" 2>/dev/null || echo "tests/python/run.sh: no MCP SDK (its tests skip)" >&2
cd tests/python
exec "../../$venv/bin/python" -m pytest -p no:cacheprovider -rs "$@" .
