#!/usr/bin/env bash
# Makes kprof's source distribution, dist/kprof-VERSION.tar.gz, that builds with nvcc, CMake and a
# C++17 compiler alone (docs/INSTALL.md "From source"): `pip install kprof-VERSION.tar.gz` needs
# no Debian -dev package.
#   third_party/include   CLI11, nlohmann/json, fmt (header-only here: kprof compiles fmt's one
#                         source itself, src/core/fmt_impl.cpp) and libffi's ffi.h/ffitarget.h
#   third_party/lib       libffi_pic.a (libffi 3.4, position-independent, needs GLIBC_2.27 at most)
#   third_party/LICENSES  each package's Debian copyright file (its licence)
# are fetched from Debian with `apt-get download` when the sdist is made (never committed:
# .gitignore), and the sdist carries them (pyproject.toml sdist.include). pybind11 and
# scikit-build-core are PyPI build requirements. libelf is not needed (src/kernel/elf_check.cpp).
# Usage: bash scripts/make-sdist.sh    (needs apt-get and dpkg-deb, and PyPI or a pip cache)
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
tp=third_party
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pkgs=(libcli11-dev nlohmann-json3-dev libfmt-dev libffi-dev libffi8)
(cd "$tmp" && apt-get download -q "${pkgs[@]}" >/dev/null 2>&1) ||
  { echo "make-sdist: apt-get download ${pkgs[*]} failed (apt-get update first?)" >&2; exit 2; }
for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$tmp/root"; done
rm -rf "$tp"
mkdir -p "$tp/include" "$tp/lib" "$tp/LICENSES"
r=$tmp/root
cp -r "$r/usr/include/CLI" "$r/usr/include/nlohmann" "$r/usr/include/fmt" "$tp/include/"
cp "$r/usr/include/x86_64-linux-gnu/ffi.h" "$r/usr/include/x86_64-linux-gnu/ffitarget.h" "$tp/include/"
cp "$r/usr/lib/x86_64-linux-gnu/libffi_pic.a" "$tp/lib/"
cp "$r/usr/share/doc/libcli11-dev/copyright" "$tp/LICENSES/CLI11.copyright"
cp "$r/usr/share/doc/nlohmann-json3-dev/copyright" "$tp/LICENSES/nlohmann-json.copyright"
cp "$r/usr/share/doc/libfmt-dev/copyright" "$tp/LICENSES/fmt.copyright"
cp "$r/usr/share/doc/libffi8/copyright" "$tp/LICENSES/libffi.copyright"
for deb in "$tmp"/*.deb; do basename "$deb"; done > "$tp/SOURCES.txt"  # the exact Debian versions

tools=build/wheel-tools
if ! "$tools/bin/python" -c 'import scikit_build_core' 2>/dev/null; then
  [ -x "$tools/bin/python" ] || /usr/bin/python3 -m venv "$tools"
  "$tools/bin/pip" install -q "scikit-build-core>=0.10"
fi
mkdir -p dist
rm -f dist/kprof-*.tar.gz
name=$("$tools/bin/python" -c 'from scikit_build_core.build import build_sdist; print(build_sdist("dist"))' | tail -1)
echo "make-sdist: dist/$name: $(du -h "dist/$name" | cut -f1), $(tar -tzf "dist/$name" | wc -l) files, $(( $(date +%s) - start )) s" >&2
