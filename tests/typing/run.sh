#!/usr/bin/env bash
# mypy over real calls of kprof's API, against the generated stub python/kprof/__init__.pyi:
# calls_ok.py must give no error; calls_wrong.py exactly one error on each line marked `# wrong`.
# Usage: bash tests/typing/run.sh [PYTHON_WITH_MYPY]   (exit 0 pass, 1 fail, 77 no mypy)
set -uo pipefail
cd "$(dirname "$0")/../.."
py=${1:-python3}
"$py" -m mypy --version >/dev/null 2>&1 || { echo "tests/typing/run.sh: no mypy for $py (pip install mypy)"; exit 77; }
export MYPYPATH=python
args=(--no-incremental --ignore-missing-imports --follow-imports=silent --python-version 3.10 --no-error-summary)
ok=$("$py" -m mypy "${args[@]}" tests/typing/calls_ok.py)
echo "calls_ok.py: $(printf '%s' "$ok" | grep -c ': error:') error(s)"
[ -n "$ok" ] && { echo "$ok"; echo "FAIL: a right call was rejected"; exit 1; }
bad=$("$py" -m mypy "${args[@]}" tests/typing/calls_wrong.py)
want=$(grep -n '  # wrong:' tests/typing/calls_wrong.py | cut -d: -f1 | sort -n | uniq)
got=$(printf '%s\n' "$bad" | grep ': error:' | cut -d: -f2 | sort -n | uniq)
echo "calls_wrong.py: $(echo "$want" | wc -l) wrong call(s), rejected on lines: $(echo $got)"
if [ "$want" != "$got" ]; then
  echo "$bad"
  echo "FAIL: the wrong calls' lines ($(echo $want)) and mypy's errors ($(echo $got)) differ"
  exit 1
fi
echo "PASS: mypy accepts the right calls and rejects each wrong one"
