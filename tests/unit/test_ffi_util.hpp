// Test helpers: a private temporary folder and compiling small shared libraries at test time
// (cc / c++ here, nvcc in the GPU tests), so libffi and dlopen are exercised on real .so files.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/subprocess.hpp"

namespace kprof_test {

/// A fresh folder under $TMPDIR (or /tmp), removed with its contents on destruction.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/kprof_test_XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data())) path_ = buf.data();
  }
  ~TempDir() {
    std::error_code ec;  // never throws, also when run at exit
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return kprof::join_path(path_, name); }

 private:
  std::string path_;
};

/// Writes `source` to dir/name.<ext> and compiles it with `compiler` (first word searched on
/// PATH) into dir/name.so: `compiler -shared -fPIC [extra...] -o name.so name.ext`.
/// Returns the .so path, or "" after recording a test failure with the compiler's output.
inline std::string build_shared_library(const TempDir& dir, const std::string& name, const std::string& source,
                                        const std::string& compiler, const std::string& ext,
                                        const std::vector<std::string>& extra = {}) {
  std::string src = dir.file(name + "." + ext), so = dir.file(name + ".so");
  kprof::write_file_atomic(src, source);
  std::vector<std::string> argv = {compiler, "-shared"};
  if (compiler.find("nvcc") != std::string::npos)
    argv.insert(argv.end(), {"-Xcompiler", "-fPIC"});
  else
    argv.push_back("-fPIC");
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.insert(argv.end(), {"-o", so, src});
  kprof::ProcessOptions opts;
  opts.timeout_s = 300;
  auto r = kprof::run_process(argv, opts);
  if (!r.ok()) {
    ADD_FAILURE() << "building " << name << " failed: " << kprof::shell_join(argv) << "\n" << r.combined();
    return "";
  }
  return so;
}

/// The C compiler to use, or "" when none is installed (tests then skip with the reason).
inline std::string c_compiler() {
  for (const char* c : {"cc", "gcc", "clang"})
    if (!kprof::find_on_path(c).empty()) return c;
  return "";
}

/// The C++ compiler to use, or "".
inline std::string cxx_compiler() {
  for (const char* c : {"c++", "g++", "clang++"})
    if (!kprof::find_on_path(c).empty()) return c;
  return "";
}

/// Runs `fn`, expecting a kprof usage error (exit 2); returns "message\nhint" for the test to search.
template <typename F>
std::string usage_error_of(F&& fn) {
  try {
    fn();
  } catch (const kprof::Error& e) {
    EXPECT_EQ(e.code(), kprof::ExitCode::Usage);
    return std::string(e.what()) + "\n" + e.hint();
  }
  ADD_FAILURE() << "expected a usage error";
  return "";
}

}  // namespace kprof_test
