#!/usr/bin/env bash
# Sets up and builds kprof on a fresh Debian 12 machine, in one command (README.md "Install").
# Safe to run again: it installs only what is missing and rebuilds only what changed.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: bash scripts/setup.sh [--no-ncu-report] [--cupti] [--no-ccache] [--no-build] [--help]

Sets up and builds kprof on a Debian 12 (or Ubuntu) machine:
  1. installs the Debian packages kprof needs when they are missing (apt-get; through sudo
     when not run as root): cmake g++ make libcli11-dev nlohmann-json3-dev libfmt-dev
     libffi-dev pybind11-dev libgtest-dev googletest python3-dev python3-pip python3-venv
     python3-matplotlib clang-format-14 slurm-wlm munge ccache;
  2. installs PyPI's ncu-report (Nsight Compute's Python report interface, the version the
     tests read the committed H200 reports with) into the Python kprof embeds (python3 on
     PATH): python3 -m pip install ncu-report==2026.3.1, and matplotlib there when that Python
     lacks it (the charts). Both are optional: without them the tests that need them skip and
     say why, and kprof uses ncu's own extras/python when ncu is installed; with --cupti,
     PyPI's nvidia-cuda-cupti>=13.4,<14 into .cupti/ (pip --target, not into that Python,
     where PyTorch pins its own copy), which CMake then links instead of the toolkit's
     CUPTI: the GPU-duration pass then also asks CUPTI to reset the L2 before each kernel.
     A failed download only warns (the toolkit's CUPTI is linked); the CMake line
     "kprof: ... CUPTI ..." says which one the build uses;
  3. configures and builds kprof in build/:
       cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo   (+ ccache launchers when present)
       cmake --build build -j"$(nproc)"
     with /usr/local/cuda/bin added to PATH when nvcc is not on PATH.

The CUDA toolkit (nvcc, cudart, CUPTI) is not installed by this script: install NVIDIA's
toolkit (kprof is built with CUDA 13.0 at /usr/local/cuda). Then run the tests:
  ctest --test-dir build --output-on-failure -j"$(nproc)"

Options:
  --no-ncu-report  do not install ncu-report nor matplotlib (step 2)
  --cupti          also install nvidia-cuda-cupti>=13.4 into .cupti/ (step 2), which CMake then
                   links (to go back to the toolkit's CUPTI: delete .cupti/ and run again without --cupti)
  --no-ccache      configure without the ccache compiler launchers (also drops them from an
                   existing build/ configured with them)
  --no-build       steps 1 and 2 only (.ci/run checks the code style between them and the build)
  -h, --help       print this help and exit
EOF
}

ncu_report=1
cupti=0
ccache=1
build=1
for arg in "$@"; do
  case "$arg" in
    --no-ncu-report) ncu_report=0 ;;
    --cupti) cupti=1 ;;
    --no-ccache) ccache=0 ;;
    --no-build) build=0 ;;
    -h | --help)
      usage
      exit 0
      ;;
    *)
      echo "setup.sh: unknown option '$arg'" >&2
      usage >&2
      exit 2
      ;;
  esac
done

cd "$(dirname "$0")/.."
say() { echo "setup.sh: $*" >&2; }

# ---- 1. Debian packages -----------------------------------------------------------------------
# slurm-wlm and munge: the single-node Slurm cluster of the SlurmEndToEnd test (tests/slurm/);
# clang-format-14: the pinned code style checker (scripts/check-format.sh); ccache: faster rebuilds.
pkgs=(cmake g++ make libcli11-dev nlohmann-json3-dev libfmt-dev libffi-dev pybind11-dev libgtest-dev
      googletest python3-dev python3-pip python3-venv python3-matplotlib clang-format-14 slurm-wlm munge ccache)
if command -v apt-get >/dev/null 2>&1; then
  missing=()
  for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    sudo=()
    if [ "$(id -u)" -ne 0 ]; then
      command -v sudo >/dev/null 2>&1 || {
        say "missing packages (${missing[*]}) and no sudo: run as root, or apt-get install them first"
        exit 1
      }
      sudo=(sudo)
    fi
    say "installing ${missing[*]}"
    ${sudo[@]+"${sudo[@]}"} env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    ${sudo[@]+"${sudo[@]}"} env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  else
    say "Debian packages: all present"
  fi
else
  say "no apt-get: install the equivalents of these packages yourself: ${pkgs[*]}"
fi

# ---- 2. PyPI: ncu-report in the Python kprof embeds (src/stages/ncu/ncu_rep.hpp kNcuReportTestedVersion) ----
ncu_report_version=2026.3.1
if [ "$ncu_report" -eq 1 ]; then
  have=$(python3 -c 'import importlib.metadata as m; print(m.version("ncu-report"))' 2>/dev/null || true)
  if [ "$have" = "$ncu_report_version" ]; then
    say "ncu-report $have: already installed"
  elif ! python3 -m pip --version >/dev/null 2>&1; then
    say "python3 has no pip: install it (Debian: python3-pip) or run with --no-ncu-report" \
        "(ncu-report is optional: the tests that need it skip and say why)"
    exit 1
  elif ! python3 -m pip install -q "ncu-report==$ncu_report_version"; then
    say "pip could not install ncu-report==$ncu_report_version into $(command -v python3)." \
        "A Debian system Python refuses pip (externally managed): activate a virtual environment" \
        "first (kprof embeds the python3 on PATH), or set PIP_BREAK_SYSTEM_PACKAGES=1, or run with" \
        "--no-ncu-report (it is optional: the tests that need it skip and say why)"
    exit 1
  fi
else
  say "ncu-report skipped (--no-ncu-report): the tests that need it skip and say why"
fi

# matplotlib for the charts (roofline.svg, sweep charts) in the same Python: the Debian package above
# serves /usr/bin/python3 only; a python3 of its own (pyenv, a virtual environment) gets it from PyPI.
# Optional: without it the charts are skipped with a note and their tests skip and say why.
if [ "$ncu_report" -eq 1 ] && ! python3 -c 'import matplotlib' >/dev/null 2>&1; then
  if python3 -m pip install -q matplotlib; then
    say "matplotlib installed into $(command -v python3)"
  else
    say "warning: pip could not install matplotlib into $(command -v python3): charts and their tests are skipped"
  fi
fi

# With --cupti, PyPI's CUPTI 13.4+ (nvidia-cuda-cupti) into .cupti/ (git-ignored), apart from the
# Python's own site-packages, where a CUDA build of PyTorch pins its own copy: CMake links it instead
# of the toolkit's (cmake/Deps.cmake), and the GPU-duration pass then also has CUPTI reset the L2
# before each kernel (its cache control, as ncu's --cache-control all does for the L2). A failed
# download only warns: kprof then links the toolkit's CUPTI.
if [ "$cupti" -eq 1 ]; then
  have=$(ls -d .cupti/nvidia_cuda_cupti-*.dist-info 2>/dev/null | sed -n 's/.*nvidia_cuda_cupti-\(.*\)\.dist-info/\1/p' | head -n 1 || true)
  if [ -n "$have" ] && python3 -c 'import sys; v = tuple(int(x) for x in sys.argv[1].split(".")[:2]); sys.exit(v < (13, 4))' "$have"; then
    say "nvidia-cuda-cupti $have: already in .cupti/"
  elif python3 -m pip install -q --no-deps --upgrade --target .cupti "nvidia-cuda-cupti>=13.4,<14"; then
    say "nvidia-cuda-cupti installed into .cupti/ (CUPTI 13.4+: kprof links it; build/kprof env shows it with a GPU)"
  else
    say "warning: pip could not download nvidia-cuda-cupti>=13.4: kprof links the toolkit's CUPTI"
  fi
fi

# ---- 3. configure and build ------------------------------------------------------------------
if [ "$build" -eq 0 ]; then
  say "set up (--no-build: not configured or built)"
  exit 0
fi
# CMake's CUDA language needs nvcc (NVIDIA's toolkit installs it in /usr/local/cuda/bin).
if ! command -v nvcc >/dev/null 2>&1; then
  if [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH=/usr/local/cuda/bin:$PATH
  else
    say "warning: no nvcc on PATH nor in /usr/local/cuda/bin: install the CUDA toolkit (CMake's CUDA language needs it)"
  fi
fi
cmake_args=(-S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo)
if [ "$ccache" -eq 1 ] && command -v ccache >/dev/null 2>&1; then
  # ccache caches precompiled-header builds only with these sloppiness settings (ccache's manual,
  # "Precompiled headers"); ccache 4.7 takes them from the environment, hence env as the launcher.
  launcher="env;CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime;ccache"
  cmake_args+=("-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher" -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
elif [ "$ccache" -eq 0 ]; then
  cmake_args+=(-UCMAKE_CXX_COMPILER_LAUNCHER -UCMAKE_CUDA_COMPILER_LAUNCHER)
fi
cmake "${cmake_args[@]}"
cmake --build build -j"$(nproc)"
say "built build/kprof; run the tests with: ctest --test-dir build --output-on-failure -j\"\$(nproc)\""
