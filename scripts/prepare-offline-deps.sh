#!/usr/bin/env bash
# Prepares what an offline GPU machine lacks to build and run kprof, in git-ignored folders:
#   .deps/include      headers of CLI11, nlohmann/json, fmt, libffi (from this machine's Debian packages)
#   .deps/googletest   GoogleTest sources (Debian package googletest)
#   .deps/cutlass      CUTLASS C++ headers (include/ and tools/util/include/ from PyPI's nvidia-cutlass wheel),
#                      also packed as .deps/cutlass.tar.xz (about 3 MB instead of 28) to carry to the GPU machine
#   .whl-ncu/          PyPI's ncu-report wheel (Nsight Compute's Python report interface, ~17 MB), a fallback
#                      for reading .ncu-rep files where ncu's own extras/python is missing (tests/gpu hotlines)
#   .whl-cupti/        PyPI's nvidia-cuda-cupti wheel (CUPTI 13.5, ~13 MB): tests/gpu/run.sh puts its libcupti
#                      first on the library path, so the GPU-duration pass resets the L2 before each kernel
#                      as ncu does (CUPTI 13.4+; the GPU machine's toolkit has 13.0)
#   .dsl1/ .dsl2/      (with --cute-dsl) the nvidia-cutlass-dsl 4.8.1 wheels for Python 3.12, xz-compressed
#                      and split in two halves of < 34 MB, for two device calls of at most 64 MiB each
# Nothing here is committed (.gitignore). Needs: apt-get install libcli11-dev nlohmann-json3-dev
# libfmt-dev libffi-dev googletest; python3 -m pip (PyPI).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
deps="$root/.deps"
cutlass_version=4.2.0.0
dsl_version=4.8.1
ncu_report_version=2026.3.1  # src/stages/ncu/ncu_rep.hpp kNcuReportTestedVersion
cupti_version=13.5.25        # README "Install": nvidia-cuda-cupti>=13.4

need() { [ -e "$1" ] || { echo "missing $1: apt-get install $2" >&2; exit 2; }; }
need /usr/include/CLI/CLI.hpp libcli11-dev
need /usr/include/nlohmann/json.hpp nlohmann-json3-dev
need /usr/include/fmt/format.h libfmt-dev
need /usr/include/x86_64-linux-gnu/ffi.h libffi-dev
need /usr/src/googletest/CMakeLists.txt googletest

rm -rf "$deps"
mkdir -p "$deps/include" "$deps/lib" "$deps/wheels"
cp -r /usr/include/CLI /usr/include/nlohmann /usr/include/fmt "$deps/include/"
cp /usr/include/x86_64-linux-gnu/ffi.h /usr/include/x86_64-linux-gnu/ffitarget.h "$deps/include/"
cp -r /usr/src/googletest "$deps/googletest"

# CUTLASS C++ headers: PyPI's nvidia-cutlass ships them under cutlass_library/source/.
python3 -m pip download -q --no-deps --only-binary=:all: -d "$deps/wheels" "nvidia-cutlass==$cutlass_version"
tmp=$(mktemp -d)
unzip -q "$deps/wheels"/nvidia_cutlass-*.whl 'cutlass_library/source/include/*' \
  'cutlass_library/source/tools/util/include/*' -d "$tmp"
mkdir -p "$deps/cutlass/tools/util"
mv "$tmp/cutlass_library/source/include" "$deps/cutlass/include"
mv "$tmp/cutlass_library/source/tools/util/include" "$deps/cutlass/tools/util/include"
rm -rf "$tmp" "$deps/wheels"
tar -C "$deps" -cf - cutlass | xz -6 -T2 > "$deps/cutlass.tar.xz"

rm -rf "$root/.whl-ncu"
python3 -m pip download -q --no-deps --only-binary=:all: -d "$root/.whl-ncu" "ncu-report==$ncu_report_version"
rm -rf "$root/.whl-cupti"
python3 -m pip download -q --no-deps --only-binary=:all: -d "$root/.whl-cupti" "nvidia-cuda-cupti==$cupti_version"

# The Python package's GPU stage (tests/gpu/scenarios.sh wheel): pytest for the gate, for the GPU
# machine's Python 3.12, beside the kprof wheels in dist/ (scripts/build-wheels.sh).
rm -rf "$root/dist/deps"
python3 -m pip download -q --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 -d "$root/dist/deps" "pytest>=8,<9"

if [ "${1:-}" = "--cute-dsl" ]; then
  tmp=$(mktemp -d)
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 -d "$tmp/whl" "nvidia-cutlass-dsl==$dsl_version" \
    "nvidia-cutlass-dsl-libs-base==$dsl_version" "nvidia-cutlass-dsl-libs-core==$dsl_version" \
    "nvidia-cutlass-dsl-libs-cu13==$dsl_version"
  mkdir -p "$tmp/site"
  for w in "$tmp"/whl/*.whl; do unzip -q -o "$w" -d "$tmp/site"; done
  rm -rf "$root/.dsl1" "$root/.dsl2"
  mkdir -p "$root/.dsl1" "$root/.dsl2"
  tar -C "$tmp/site" -cf - . | xz -9 -T2 > "$tmp/dsl.tar.xz"
  split -b 33M -d "$tmp/dsl.tar.xz" "$tmp/dsl.part."
  mv "$tmp/dsl.part.00" "$root/.dsl1/"
  mv "$tmp"/dsl.part.0[1-9] "$root/.dsl2/"
  rm -rf "$tmp"
  echo "CuTe DSL: .dsl1 and .dsl2 (carry each in its own device call; see tests/gpu/run.sh)"
fi
du -sh "$deps" "$root"/dist/deps "$root"/.whl-ncu "$root"/.whl-cupti "$root"/.dsl* 2>/dev/null || true
