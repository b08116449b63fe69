// Checking a kernel library before anything loads it: its ELF header and symbol tables are read
// from the file (glibc's <elf.h> layouts, every offset bounds-checked; no libelf), without dlopen (which would run its constructors and need libcuda), so a
// wrong --so is an input error (exit 2) on any machine, before the GPU.
#pragma once

#include <string>

namespace kprof {

/// True: check_kernel_library_file always reads the ELF header and symbols (kept for the callers
/// and tests written when that needed libelf).
bool elf_check_available();

/// Checks that `so_path` is a shared library for this machine that exports a function `solve`.
/// Throws usage_error (exit 2) with `hint` attached: the path is missing or a folder; the file is
/// empty, not ELF (its first bytes quoted), 32-bit, for another machine (named), an object file
/// or executable rather than a shared library; it has no dynamic symbols; `solve` is absent
/// (naming a C++-mangled _Z5solve... when that is there instead), undefined, not a function, or
/// defined but not exported (static / hidden visibility).
void check_kernel_library_file(const std::string& so_path, const std::string& hint);

/// The error for a library without `solve`: naming `mangled` (a C++-mangled _Z5solve... found
/// instead, "" when none) and saying to declare it extern "C". Always throws usage_error (exit 2).
[[noreturn]] void throw_no_solve(const std::string& so_path, const std::string& mangled, const std::string& hint);

}  // namespace kprof
