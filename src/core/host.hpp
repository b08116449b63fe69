// The host kprof runs in, as one value: the Python interpreter that hosts the core (the Python
// package's sys.executable), the words that start kprof again in a child, and the folders of the
// nvidia-cuda-cupti wheels on that Python's sys.path. The executable has the default value (its
// own embedded Python, /proc/self/exe, no wheel folders); the Python package sets it once at import
// (kprof._host -> _core.set_host), before any thread of kprof's starts.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kprof {

/// Where kprof runs.
struct Host {
  /// The interpreter that hosts the core (sys.executable): set, kprof uses the running
  /// interpreter and never starts one (python/interpreter.hpp); nullopt: the executable embeds
  /// its own (KPROF_PYTHON or the build's).
  std::optional<std::string> python;
  bool owns_stdout = true;  ///< kprof may redirect Python's stdout (false inside the user's Python)
  /// The words that start kprof again (`{sys.executable, "-m", "kprof"}`); empty: /proc/self/exe.
  std::vector<std::string> self_command;
  /// nvidia-cuda-cupti wheel folders (…/nvidia/cu13/lib), newest first (device/cupti_loader.hpp).
  std::vector<std::string> cupti_dirs;
};

/// The process's host (a copy). Thread-safe.
Host current_host();

/// Replaces the process's host: once at start (the extension module), or a test's ScopedHost.
void set_host(Host h);

/// Sets the host for its lifetime and restores the one before (tests).
class ScopedHost {
 public:
  explicit ScopedHost(Host h) : saved_(current_host()) { set_host(std::move(h)); }
  ~ScopedHost() { set_host(saved_); }
  ScopedHost(const ScopedHost&) = delete;
  ScopedHost& operator=(const ScopedHost&) = delete;

 private:
  Host saved_;
};

}  // namespace kprof
