#!/usr/bin/env bash
# The tests of the installed package: installs a kprof wheel (dist/, from scripts/build-wheels.sh)
# into a fresh virtual environment of PYTHON (default: Debian's /usr/bin/python3, an interpreter
# that is not the one the C++ tests embed) with pip --no-index (no compiler, no build), then runs
# pytest tests/python against it. Usage: bash tests/python/run.sh [PYTHON]
set -euo pipefail
cd "$(dirname "$0")/../.."
py=${1:-/usr/bin/python3}
[ $# -gt 0 ] && shift
tag=$("$py" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
wheel=$(ls -t dist/kprof-*-"$tag"-*manylinux*.whl 2>/dev/null | head -1 || true)
if [ -z "$wheel" ]; then
  echo "tests/python/run.sh: no $tag manylinux wheel in dist/: run bash scripts/build-wheels.sh $py" >&2
  exit 2
fi
venv=build/pytest-venv-$tag
rm -rf "$venv"
"$py" -m venv "$venv"
start=$(date +%s%N)
"$venv/bin/pip" install -q --no-index "$wheel"
echo "tests/python/run.sh: installed $(basename "$wheel") in $(( ($(date +%s%N) - start) / 1000000 )) ms (pip --no-index)" >&2
# pytest, and ncu-report for the .ncu-rep test when PyPI is reachable (that test skips without it).
"$venv/bin/pip" install -q "pytest>=7" || { echo "tests/python/run.sh: pytest could not be installed" >&2; exit 2; }
"$venv/bin/pip" install -q "ncu-report==2026.3.1" 2>/dev/null || echo "tests/python/run.sh: no ncu-report (its test skips)" >&2
"$venv/bin/pip" install -q "mcp>=2,<3" 2>/dev/null || echo "tests/python/run.sh: no MCP SDK (its tests skip)" >&2
cd tests/python
exec "../../$venv/bin/python" -m pytest -p no:cacheprovider -rs "$@" .
