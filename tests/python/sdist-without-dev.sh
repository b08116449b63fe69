#!/usr/bin/env bash
# The sdist's check on a machine without Debian's -dev packages (issue 51 item 2), on a machine that
# has them: in a private mount namespace (unshare -m, root), /usr is an overlay whose files of every
# installed -dev package are deleted (whiteouts: gone, as after `apt-get remove`, symlinks included),
# except the C/C++ compiler's own (the -dev packages g++ depends on: libc6-dev, libstdc++-12-dev,
# libgcc-12-dev, linux-libc-dev, libcrypt-dev, libnsl-dev, libtirpc-dev). Nothing outside the
# namespace changes: other builds on the machine keep their packages. Then tests/python/run.sh
# --sdist PYTHON builds dist/kprof-VERSION.tar.gz with pip (compiler -H: every header's path) and
# runs tests/python against it; afterwards every header the build opened is sorted by where it
# came from, and one from a removed package fails the check.
# Usage: bash tests/python/sdist-without-dev.sh [PYTHON]   (root; default PYTHON: pyenv's 3.13)
# PYTHON must carry its own headers (pyenv, python.org): Debian's python3 needs python3-dev, which
# is removed here like the others.
set -euo pipefail
cd "$(dirname "$0")/../.."
py=${1:-$(ls "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.13.*/bin/python3.13 2>/dev/null | head -1)}
[ -n "$py" ] && [ -x "$py" ] || { echo "sdist-without-dev: no Python given and no pyenv 3.13" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "sdist-without-dev: needs root (unshare -m, mount)" >&2; exit 2; }
keep='^(libc6-dev|libcrypt-dev|libgcc-12-dev|libnsl-dev|libstdc\+\+-12-dev|libtirpc-dev|linux-libc-dev)$'

if [ "${KPROF_NODEV_INSIDE:-}" != 1 ]; then
  exec env KPROF_NODEV_INSIDE=1 unshare -m --propagation private bash "$0" "$py"
fi

# Inside the namespace: /usr as an overlay (upper layer in a tmpfs), the -dev files deleted in it.
tmp=$(mktemp -d)
mount -t tmpfs kprof-nodev "$tmp"
mkdir "$tmp/up" "$tmp/work"
mount -t overlay kprof-nodev -o "lowerdir=/usr,upperdir=$tmp/up,workdir=$tmp/work" /usr
mapfile -t pkgs < <(dpkg-query -W -f='${Package} ${Status}\n' | awk '$NF == "installed" {print $1}' |
  grep -E -- '-dev(:[a-z0-9]+)?$' | grep -Ev "$keep")
dpkg -L "${pkgs[@]}" 2>/dev/null | grep '^/usr/' | sort -u > "$tmp/paths"
removed=0
while IFS= read -r p; do
  if [ -L "$p" ] || [ -f "$p" ]; then rm -f "$p" && removed=$((removed + 1)); fi
done < "$tmp/paths"
sort -r "$tmp/paths" | while IFS= read -r p; do [ -d "$p" ] && rmdir "$p" 2>/dev/null || true; done
left=0
while IFS= read -r p; do
  if [ -L "$p" ] || [ -f "$p" ]; then left=$((left + 1)); fi
done < "$tmp/paths"
echo "sdist-without-dev: ${#pkgs[@]} -dev packages removed in this namespace ($removed files, $left left):" \
     "${pkgs[*]}" >&2
[ "$left" -eq 0 ] || exit 1
for h in /usr/include/nlohmann /usr/include/CLI /usr/include/fmt /usr/include/pybind11 \
         /usr/include/x86_64-linux-gnu/ffi.h /usr/include/python3.11/Python.h /usr/lib/x86_64-linux-gnu/libffi.so \
         /usr/lib/x86_64-linux-gnu/libffi_pic.a /usr/include/gelf.h; do
  [ -e "$h" ] && { echo "sdist-without-dev: $h is still there" >&2; exit 1; }
done

# The build and the tests (run.sh --sdist: -H on every compile, no header from /usr/include's
# kprof dependencies, libffi_pic.a from the sdist's third_party/).
tag=$("$py" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
status=0
bash tests/python/run.sh --sdist "$py" -q || status=$?

# Where every header came from (the -H lines of every compile).
log=build/sdist-build-$tag.log
mapfile -t kept_pkgs < <(dpkg-query -W -f='${Package} ${Status}\n' | awk '$NF == "installed" {print $1}' |
  grep -E -- '-dev(:[a-z0-9]+)?$' | grep -E "$keep")
dpkg -L "${kept_pkgs[@]}" 2>/dev/null | grep '^/usr/include/' > "$tmp/kept"
grep -oE '^[[:space:]]*\.+ /[^ ]+' "$log" | sed 's/^[[:space:]]*\.* //' | sort -u > "$tmp/headers"
("$py" - "$tmp/headers" "$tmp/kept" "$tmp/paths" <<'EOF'
import os, sys
headers = [l.strip() for l in open(sys.argv[1]) if l.strip()]
kept = {os.path.realpath(l.strip()) for l in open(sys.argv[2]) if l.strip()}
removed = {l.strip() for l in open(sys.argv[3]) if l.strip()}
groups = {}
for h in headers:
    r = os.path.realpath(h)
    if "/third_party/include/" in r: g = "the sdist's third_party/include (CLI11, nlohmann/json, fmt, ffi.h)"
    elif "/pybind11/include/" in r and "site-packages" in r: g = "PyPI pybind11 (pip's build environment)"
    elif r.startswith("/usr/local/cuda"): g = "the CUDA toolkit (/usr/local/cuda)"
    elif r.startswith(sys.base_prefix + "/include/"): g = "the Python's own headers (" + sys.base_prefix + "/include)"
    elif not r.startswith("/usr/"): g = "the unpacked sdist (kprof's sources, generated headers)"
    elif r in kept: g = "the compiler's -dev packages (libc6-dev, libstdc++-12-dev, linux-libc-dev, ...)"
    elif r.startswith("/usr/lib/gcc/"): g = "the compiler's own headers (/usr/lib/gcc)"
    elif h in removed or r in removed: g = "REMOVED PACKAGE"
    else: g = "other"
    groups.setdefault(g, []).append(h)
for g, hs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
    print(f"sdist-without-dev: {len(hs):5d} headers from {g}" + ("" if g not in ("other", "REMOVED PACKAGE") else ": " + " ".join(hs[:10])), file=sys.stderr)
sys.exit(1 if ("other" in groups or "REMOVED PACKAGE" in groups) else 0)
EOF
) || status=1
exit "$status"
