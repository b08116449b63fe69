// The builds of `kprof run --build`: every version's nvcc runs on a small pool of
// threads, bounded by the cores, while the environment probe and the ref.py load go on; the
// workflow waits for one version's build before loading it and for all of them before the first
// timed call or Nsight Compute session (nvcc on the CPU would perturb the call times).
#pragma once

#include <atomic>
#include <exception>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "kernel/build.hpp"
#include "kernel/kernel_spec.hpp"

namespace kprof {

/// One version's build as the pool left it.
struct VersionBuild {
  bool needed = false;                ///< --build on a cuda-cpp / cutlass version (Python needs none)
  std::optional<BuildResult> result;  ///< set when it succeeded
  std::exception_ptr error;           ///< what build_kernel threw (Error: exit 1 nvcc failed, 2 input)
  double wall_s = 0;                  ///< seconds from its start to its end on the pool, cache look-up included
};

/// Starts the builds of `versions` (those with spec.build and a .cu) at construction, on
/// min(`workers`, versions to build) threads (`workers` 0: the hardware's thread count). Prints one
/// progress line per finished build ("[v1] build: compiled (3.2 s)" / "up to date" / "from cache" /
/// "FAILED"); with `hold_lines` those lines wait for show_lines() (`kprof run` starts the builds
/// before the versions' inputs are validated: an input error is then its only message).
/// A version whose implementation does not resolve is not built (its validation says why). The
/// destructor waits for builds still running (each is bounded by nvcc's timeout).
class ParallelBuilds {
 public:
  ParallelBuilds(const std::vector<KernelSpec>& versions, const std::vector<std::string>& names, unsigned workers = 0,
                 bool hold_lines = false);
  ~ParallelBuilds();
  ParallelBuilds(const ParallelBuilds&) = delete;
  ParallelBuilds& operator=(const ParallelBuilds&) = delete;

  /// Waits for version `i`'s build and returns it; rethrows its Error when it failed (once per
  /// call). Returns at once for a version that needs no build.
  const VersionBuild& wait(size_t i);

  /// Waits for every build (before timing or ncu); failures stay on their versions.
  void wait_all();

  /// Starts no further build, stops the nvcc processes running (within about 200 ms) and prints
  /// no more lines (the run stops: environment not ready); wait() reports them as not built.
  void cancel() { cancelled_ = true; }

  /// Prints the lines held back so far (hold_lines) and from now on each as its build ends.
  void show_lines();

  /// How many threads build (0 when nothing needs building).
  size_t workers() const { return threads_.size(); }

 private:
  void work(const std::vector<KernelSpec>& versions, const std::vector<std::string>& names);

  std::vector<VersionBuild> builds_;
  std::vector<size_t> todo_;     ///< indices of the versions to build, in order
  std::atomic<size_t> next_{0};  ///< next entry of todo_ to take
  std::atomic<bool> cancelled_{false};
  std::mutex lines_mutex_;
  bool hold_lines_ = false;        ///< guarded by lines_mutex_
  std::vector<std::string> held_;  ///< lines held back until show_lines()
  std::vector<std::promise<void>> done_;
  std::vector<std::shared_future<void>> ready_;
  std::vector<std::thread> threads_;
};

}  // namespace kprof
