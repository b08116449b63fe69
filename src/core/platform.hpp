// What kprof's binary packages support (docs/INSTALL.md "Supported platforms"): the one text that
// `kprof env` prints.
#pragma once

namespace kprof {

/// The platforms and Pythons kprof's wheels are built for (scripts/build-wheels.sh: manylinux_2_28
/// wheels for CPython 3.10-3.13; pyproject.toml requires-python >= 3.10). The glibc floor rests on
/// auditwheel's check of the built wheels: no machine kprof is built on runs glibc 2.28.
inline constexpr const char* kPlatformSupported =
    "kprof's wheels support x86-64 Linux with glibc 2.28 or newer (manylinux_2_28: RHEL/Rocky/Alma 8+, "
    "Ubuntu 20.04+, Debian 10+) and CPython 3.10 to 3.13; the glibc 2.28 floor rests on auditwheel's check of "
    "the built wheels (no glibc 2.28 machine ran them). Elsewhere, pip builds the sdist (docs/INSTALL.md).";

}  // namespace kprof
