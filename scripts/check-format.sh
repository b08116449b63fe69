#!/usr/bin/env bash
# Checks (default) or applies (--fix) kprof's code style (.clang-format) on kprof's own C++/CUDA
# sources: src/ and the tests' code. Test kernels under tests/data, tests/bad_inputs and examples/
# keep their layout (the committed .ncu-rep reports name their lines). Pinned to Debian's
# clang-format-14 (apt-get install clang-format-14): another version formats some lines differently.
set -euo pipefail
cd "$(dirname "$0")/.."
CF=${CLANG_FORMAT:-clang-format-14}
command -v "$CF" >/dev/null || { echo "check-format: $CF not found (apt-get install clang-format-14)" >&2; exit 2; }
mapfile -t files < <(git ls-files 'src/*' 'tests/unit/*' 'tests/gpu/*' 'tests/*.hpp' 'tests/*.cpp' |
                     grep -E '\.(cpp|hpp|h|cu|cuh)$')
if [ "${1:-}" = "--fix" ]; then
  "$CF" -i "${files[@]}"
else
  "$CF" --dry-run --Werror "${files[@]}" && echo "check-format: ${#files[@]} files follow .clang-format"
fi
