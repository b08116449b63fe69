#!/usr/bin/env bash
# One line: the SHA-1 of kprof's build inputs (src/, cmake/, CMakeLists.txt, tests/unit, tests/gpu/*.cpp, *.cu
# and *.hpp, tests/*.hpp, tests/CMakeLists.txt), so tests/gpu/run.sh can tell whether .prebuilt/
# (scripts/prebuild-gpu.sh) was built from the sources it runs on (Markdown files left out: they are not
# built). Needs no git (the GPU machine's copy of the tree has none).
set -euo pipefail
cd "$(dirname "$0")/.."
{ find src cmake tests/unit -type f ! -name '*.md'; ls CMakeLists.txt tests/CMakeLists.txt tests/*.hpp tests/gpu/*.cpp tests/gpu/*.hpp tests/gpu/*.cu; } |
  LC_ALL=C sort | xargs sha1sum | sha1sum | cut -d' ' -f1
