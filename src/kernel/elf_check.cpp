#include "kernel/elf_check.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>

#include "core/error.hpp"
#include "core/fs.hpp"

namespace kprof {
namespace {

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

/// A read-only mapping of a whole file (the ELF reader's input); empty when the file cannot be mapped.
struct MappedFile {
  const unsigned char* data = nullptr;
  size_t size = 0;
  explicit MappedFile(int fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || st.st_size <= 0) return;
    void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) return;
    data = static_cast<const unsigned char*>(p);
    size = static_cast<size_t>(st.st_size);
  }
  ~MappedFile() {
    if (data) ::munmap(const_cast<unsigned char*>(data), size);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  /// True when [offset, offset + bytes) lies inside the file (no overflow).
  bool holds(uint64_t offset, uint64_t bytes) const { return offset <= size && bytes <= size - offset; }
};

/// The 16-bit field at `offset` of the ELF header in the file's byte order (e_type at 16 and
/// e_machine at 18 are at the same place in 32- and 64-bit headers).
int header_u16(const MappedFile& f, size_t offset) {
  const bool msb = f.data[EI_DATA] == ELFDATA2MSB;
  return msb ? (f.data[offset] << 8) | f.data[offset + 1] : f.data[offset] | (f.data[offset + 1] << 8);
}

/// Scans the 64-bit file's .dynsym and .symtab for `solve` (section headers, symbol and string
/// tables bounds-checked against the file: a damaged table is skipped, not read past its end).
void scan_symbols(const MappedFile& f, const Elf64_Ehdr& eh, SolveSymbols& s) {
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || !f.holds(eh.e_shoff, uint64_t(eh.e_shnum) * sizeof(Elf64_Shdr))) return;
  auto section = [&](size_t i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, f.data + eh.e_shoff + i * sizeof(Elf64_Shdr), sizeof sh);
    return sh;
  };
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    const Elf64_Shdr sh = section(i);
    if ((sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) || sh.sh_entsize != sizeof(Elf64_Sym)) continue;
    const bool dyn = sh.sh_type == SHT_DYNSYM;
    s.dynsym = s.dynsym || dyn;
    if (!f.holds(sh.sh_offset, sh.sh_size) || sh.sh_link >= eh.e_shnum) continue;
    const Elf64_Shdr strtab = section(sh.sh_link);
    if (!f.holds(strtab.sh_offset, strtab.sh_size)) continue;
    const char* strings = reinterpret_cast<const char*>(f.data + strtab.sh_offset);
    for (size_t k = 0; k < sh.sh_size / sizeof(Elf64_Sym); ++k) {
      Elf64_Sym sym;
      std::memcpy(&sym, f.data + sh.sh_offset + k * sizeof sym, sizeof sym);
      if (sym.st_name >= strtab.sh_size) continue;
      const std::string nm(strings + sym.st_name, strnlen(strings + sym.st_name, strtab.sh_size - sym.st_name));
      if (nm.rfind("_Z5solve", 0) == 0 && s.mangled.empty()) s.mangled = nm;
      if (nm != "solve") continue;
      const bool defined = sym.st_shndx != SHN_UNDEF;
      const int bind = ELF64_ST_BIND(sym.st_info), type = ELF64_ST_TYPE(sym.st_info);
      const int vis = ELF64_ST_VISIBILITY(sym.st_other);
      const bool visible = vis == STV_DEFAULT || vis == STV_PROTECTED;
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

/// Throws for what the ELF header says is wrong (see check_kernel_library_file); returns the
/// 64-bit header otherwise.
Elf64_Ehdr check_header(const MappedFile& f, const std::string& so, const std::string& hint) {
  if (f.size < EI_NIDENT || std::memcmp(f.data, ELFMAG, SELFMAG) != 0)
    throw usage_error(fmt::format("kernel library {} is not a shared library: not an ELF file (it starts with {})", so,
                                  first_bytes(so)),
                      hint);
  const bool is64 = f.data[EI_CLASS] == ELFCLASS64;
  if (f.size < (is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr)) || (f.data[EI_CLASS] != ELFCLASS32 && !is64) ||
      (f.data[EI_DATA] != ELFDATA2LSB && f.data[EI_DATA] != ELFDATA2MSB))
    throw usage_error(
        "kernel library " + so + " has a damaged ELF header (truncated, or an unknown class or byte order)", hint);
  const int machine = header_u16(f, 18), type = header_u16(f, 16);
  if (!is64 || f.data[EI_DATA] != ELFDATA2LSB || (kHostMachine >= 0 && machine != kHostMachine))
    throw usage_error(fmt::format("kernel library {} is built for {}{}; this machine is {}", so, machine_name(machine),
                                  is64 ? "" : " (32-bit)", kHostName),
                      "rebuild it on this machine; " + hint);
  if (type != ET_DYN) {
    const char* what = type == ET_REL    ? "an object file (.o)"
                       : type == ET_EXEC ? "an executable"
                                         : "a core dump or other ELF file";
    throw usage_error("kernel library " + so + " is " + what + ", not a shared library",
                      "link it with nvcc -shared -Xcompiler -fPIC; " + hint);
  }
  Elf64_Ehdr eh;
  std::memcpy(&eh, f.data, sizeof eh);
  return eh;
}

}  // namespace

bool elf_check_available() { return true; }

void check_kernel_library_file(const std::string& so, const std::string& hint) {
  std::error_code ec;
  if (!std::filesystem::exists(so, ec)) throw usage_error("kernel library " + so + " not found", hint);
  if (std::filesystem::is_directory(so, ec))
    throw usage_error("kernel library " + so + " is a folder, not a shared library", hint);
  if (std::filesystem::file_size(so, ec) == 0 && !ec)
    throw usage_error("kernel library " + so + " is empty (0 bytes)", hint);
  int fd = ::open(so.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw usage_error("cannot read kernel library " + so, "check its permissions; " + hint);
  SolveSymbols s;
  {
    MappedFile f(fd);
    ::close(fd);  // the mapping stays valid
    if (!f.data) throw usage_error("cannot read kernel library " + so + " (it could not be mapped)", hint);
    scan_symbols(f, check_header(f, so, hint), s);
  }
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
}

void throw_no_solve(const std::string& so, const std::string& mangled, const std::string& hint) {
  if (!mangled.empty())
    throw usage_error("kernel library " + so + " has no symbol `solve`, only the C++-mangled " + mangled,
                      "declare it as extern \"C\" void solve(...) so its name is not mangled, then rebuild; " + hint);
  throw usage_error("kernel library " + so + " has no symbol `solve`",
                    "the .cu must define extern \"C\" void solve(...) (not static, not only __global__); " + hint);
}

}  // namespace kprof
