// Helpers for the env / clocks / build tests: temporary folders, executable scripts, scoped
// environment variables, running the built kprof binary.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/settings.hpp"
#include "core/subprocess.hpp"

namespace kprof::testutil {

/// A fresh folder under $TMPDIR, removed with its content at the end of the scope.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "kprof-test-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data()) ? tmpl : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

/// Writes `content` to `path` (creating parent folders); `exec` makes it executable (0755).
inline void write(const std::string& path, const std::string& content, bool exec = false) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::trunc) << content;
  if (exec) ::chmod(path.c_str(), 0755);
}

/// The whole file, or "" when it cannot be read.
inline std::string read_file_or_empty(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Sets (or with nullopt unsets) an environment variable for the scope, then restores it.
class ScopedEnv {
 public:
  ScopedEnv(const std::string& name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name.c_str())) old_ = old;
    if (value)
      ::setenv(name.c_str(), value->c_str(), 1);
    else
      ::unsetenv(name.c_str());
    // kprof reads its settings once (core/settings.hpp): the changed environment's, while this lives.
    settings_ = std::make_unique<ScopedSettings>(settings_from_environment());
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_.c_str(), old_->c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
  std::unique_ptr<ScopedSettings> settings_;  // destroyed after the destructor restored the variable
};

/// Runs the built kprof binary (KPROF_BINARY) with `args`, extra environment `env`, in `cwd`.
inline ProcessResult run_kprof(const std::vector<std::string>& args, const std::map<std::string, std::string>& env = {},
                               const std::string& cwd = "", double timeout_s = 120) {
  std::vector<std::string> argv = {KPROF_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions o;
  o.env = env;
  o.env["KPROF_COLOR"] = "never";
  o.cwd = cwd;
  o.timeout_s = timeout_s;
  return run_process(argv, o);
}

/// True when `haystack` contains `needle`.
inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace kprof::testutil
