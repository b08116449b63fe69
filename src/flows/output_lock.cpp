#include "flows/output_lock.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>

#include "core/file_lock.hpp"
#include "core/fs.hpp"
#include "core/term.hpp"

namespace kprof {

namespace {

constexpr const char* kVar = "KPROF_OUTPUT_LOCK";

void say_waiting(const std::string& path) {
  print_progress("waiting for another kprof run writing into " + parent_dir(path) + " to finish (" + path + ")");
}

/// DIR as one spelling for every run: absolute, links and ".." resolved.
std::string canonical_dir(const std::string& dir) {
  std::error_code ec;
  auto p = std::filesystem::weakly_canonical(std::filesystem::absolute(dir), ec);
  return ec ? absolute_path(dir) : p.string();
}

std::mutex& env_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

OutputFolderLock::OutputFolderLock(const std::string& dir) {
  if (dir.empty() || !output_dir_problem(dir).empty()) return;
  make_dirs(dir);
  const std::string canon = canonical_dir(dir);
  const std::string self = std::to_string(::getpid());
  {
    std::lock_guard<std::mutex> g(env_mutex());
    if (const char* held = std::getenv(kVar)) {
      std::string v = held;
      size_t colon = v.find(':');
      // Set by the run that started this process (another PID), for this folder: its lock covers us.
      if (colon != std::string::npos && v.substr(colon + 1) == canon && v.substr(0, colon) != self) return;
    }
  }
  lock_ = std::make_unique<FileLock>(join_path(canon, kOutputLockName), say_waiting, /*remove=*/true);
  std::lock_guard<std::mutex> g(env_mutex());
  ::setenv(kVar, (self + ":" + canon).c_str(), 1);
}

OutputFolderLock::~OutputFolderLock() = default;

void OutputFolderLock::release() { lock_.reset(); }

}  // namespace kprof
