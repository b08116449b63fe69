#include "kernel/elf_check.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <fmt/format.h>

#include "core/error.hpp"
#include "core/fs.hpp"

#ifdef KPROF_HAVE_LIBELF
#include <gelf.h>
#include <libelf.h>
#endif

namespace kprof {
namespace {

#ifdef KPROF_HAVE_LIBELF
/// The first bytes of a file, printable (`#!/bin/sh`) or as hex (`50 4b 03 04`).
std::string first_bytes(const std::string& path) {
  std::string head;
  if (int fd = ::open(path.c_str(), O_RDONLY); fd >= 0) {
    char buf[32];
    ssize_t n = ::read(fd, buf, sizeof buf);
    ::close(fd);
    if (n > 0) head.assign(buf, static_cast<size_t>(n));
  }
  bool text = !head.empty();
  for (unsigned char c : head) text = text && (std::isprint(c) || c == '\n' || c == '\t');
  if (text) {
    std::string t = head.substr(0, head.find('\n'));
    return "\"" + t + "\"";
  }
  std::string hex;
  for (size_t i = 0; i < head.size() && i < 8; ++i)
    hex += fmt::format("{}{:02x}", i ? " " : "", static_cast<unsigned char>(head[i]));
  return "bytes " + hex;
}

#if defined(__x86_64__)
constexpr int kHostMachine = EM_X86_64;
constexpr const char* kHostName = "x86-64";
#elif defined(__aarch64__)
constexpr int kHostMachine = EM_AARCH64;
constexpr const char* kHostName = "aarch64";
#else
constexpr int kHostMachine = -1;
constexpr const char* kHostName = "this machine";
#endif

std::string machine_name(int m) {
  switch (m) {
    case EM_X86_64:
      return "x86-64";
    case EM_AARCH64:
      return "aarch64 (ARM 64-bit)";
    case EM_386:
      return "i386";
    case EM_ARM:
      return "ARM 32-bit";
    case EM_PPC64:
      return "POWER (ppc64)";
    case EM_RISCV:
      return "RISC-V";
    default:
      return fmt::format("machine type {}", m);
  }
}

/// What the symbol tables say about `solve`.
struct SolveSymbols {
  bool dynsym = false;        ///< the file has a dynamic symbol table
  bool exported = false;      ///< a defined, global/weak, default-visibility function `solve` in .dynsym
  bool undefined = false;     ///< .dynsym references `solve` without defining it
  bool not_function = false;  ///< .dynsym defines `solve` as something other than a function
  bool local = false;         ///< .symtab defines `solve` but .dynsym does not export it
  std::string mangled;        ///< a C++-mangled _Z5solve... in either table
};

void scan_symbols(Elf* e, SolveSymbols& s) {
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(e, scn)) != nullptr) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) || sh.sh_entsize == 0)
      continue;
    const bool dyn = sh.sh_type == SHT_DYNSYM;
    s.dynsym = s.dynsym || dyn;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data) continue;
    const size_t n = sh.sh_size / sh.sh_entsize;
    for (size_t i = 0; i < n; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, static_cast<int>(i), &sym)) continue;
      const char* name = elf_strptr(e, sh.sh_link, sym.st_name);
      if (!name) continue;
      std::string nm = name;
      if (nm.rfind("_Z5solve", 0) == 0 && s.mangled.empty()) s.mangled = nm;
      if (nm != "solve") continue;
      const bool defined = sym.st_shndx != SHN_UNDEF;
      const int bind = GELF_ST_BIND(sym.st_info), type = GELF_ST_TYPE(sym.st_info);
      const bool visible =
          GELF_ST_VISIBILITY(sym.st_other) == STV_DEFAULT || GELF_ST_VISIBILITY(sym.st_other) == STV_PROTECTED;
      if (dyn && !defined) s.undefined = true;
      if (dyn && defined && type != STT_FUNC && type != STT_GNU_IFUNC) s.not_function = true;
      if (dyn && defined && (type == STT_FUNC || type == STT_GNU_IFUNC) && (bind == STB_GLOBAL || bind == STB_WEAK) &&
          visible)
        s.exported = true;
      if (!dyn && defined) s.local = true;
    }
  }
  if (s.exported) s.local = false;
}

/// Throws for what the ELF header says is wrong (see check_kernel_library_file).
void check_header(Elf* e, const std::string& so, const std::string& hint) {
  if (elf_kind(e) != ELF_K_ELF)
    throw usage_error(fmt::format("kernel library {} is not a shared library: not an ELF file (it starts with {})", so,
                                  first_bytes(so)),
                      hint);
  GElf_Ehdr eh;
  if (!gelf_getehdr(e, &eh))
    throw usage_error("kernel library " + so + " has a damaged ELF header (" + elf_errmsg(-1) + ")", hint);
  if (gelf_getclass(e) != ELFCLASS64 || (kHostMachine >= 0 && eh.e_machine != kHostMachine))
    throw usage_error(
        fmt::format("kernel library {} is built for {}{}; this machine is {}", so, machine_name(eh.e_machine),
                    gelf_getclass(e) == ELFCLASS64 ? "" : " (32-bit)", kHostName),
        "rebuild it on this machine; " + hint);
  if (eh.e_type != ET_DYN) {
    const char* what = eh.e_type == ET_REL    ? "an object file (.o)"
                       : eh.e_type == ET_EXEC ? "an executable"
                                              : "a core dump or other ELF file";
    throw usage_error("kernel library " + so + " is " + what + ", not a shared library",
                      "link it with nvcc -shared -Xcompiler -fPIC; " + hint);
  }
}
#endif

}  // namespace

bool elf_check_available() {
#ifdef KPROF_HAVE_LIBELF
  return true;
#else
  return false;
#endif
}

void check_kernel_library_file(const std::string& so, const std::string& hint) {
  std::error_code ec;
  if (!std::filesystem::exists(so, ec)) throw usage_error("kernel library " + so + " not found", hint);
  if (std::filesystem::is_directory(so, ec))
    throw usage_error("kernel library " + so + " is a folder, not a shared library", hint);
  if (std::filesystem::file_size(so, ec) == 0 && !ec)
    throw usage_error("kernel library " + so + " is empty (0 bytes)", hint);
#ifdef KPROF_HAVE_LIBELF
  int fd = ::open(so.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw usage_error("cannot read kernel library " + so, "check its permissions; " + hint);
  elf_version(EV_CURRENT);
  Elf* e = elf_begin(fd, ELF_C_READ, nullptr);
  SolveSymbols s;
  try {
    if (!e) throw usage_error("kernel library " + so + " cannot be read as ELF (" + elf_errmsg(-1) + ")", hint);
    check_header(e, so, hint);
    scan_symbols(e, s);
  } catch (...) {
    if (e) elf_end(e);
    ::close(fd);
    throw;
  }
  elf_end(e);
  ::close(fd);
  if (s.exported) return;
  const std::string extern_c =
      "declare it as extern \"C\" void solve(...) (not static, default visibility), then rebuild; ";
  if (!s.dynsym) throw usage_error("kernel library " + so + " has no dynamic symbol table (nothing is exported)", hint);
  if (s.undefined) throw usage_error("kernel library " + so + " uses a `solve` it does not define", extern_c + hint);
  if (s.not_function)
    throw usage_error("kernel library " + so + " exports `solve`, but not as a function", extern_c + hint);
  if (s.local)
    throw usage_error("kernel library " + so + " defines `solve` but does not export it (static, or hidden visibility)",
                      extern_c + hint);
  throw_no_solve(so, s.mangled, hint);
#endif
}

void throw_no_solve(const std::string& so, const std::string& mangled, const std::string& hint) {
  if (!mangled.empty())
    throw usage_error("kernel library " + so + " has no symbol `solve`, only the C++-mangled " + mangled,
                      "declare it as extern \"C\" void solve(...) so its name is not mangled, then rebuild; " + hint);
  throw usage_error("kernel library " + so + " has no symbol `solve`",
                    "the .cu must define extern \"C\" void solve(...) (not static, not only __global__); " + hint);
}

}  // namespace kprof
