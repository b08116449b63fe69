// Loading ref.py as a ReferenceRunner, possibly in the background while the kernel runs
// (importing PyTorch takes seconds; the kernel's first calls need none of it).
#pragma once

#include <exception>
#include <future>
#include <memory>
#include <string>

#include "stages/verify/reference_runner.hpp"

namespace kprof {

/// Loads `path` (a file defining reference(**kwargs)) in the embedded Python, with PyTorch on GPU
/// `gpu`. Throws Error (exit 2) with the Python error line when the file is missing or broken.
std::unique_ptr<ReferenceRunner> load_reference(const std::string& path, int gpu);

/// Starts load_reference on another thread; get() returns it or rethrows its Error.
class BackgroundReference {
 public:
  BackgroundReference(const std::string& path, int gpu);
  /// Waits for the load (at most once) and returns the reference. Throws what loading threw
  /// (Error: exit 2 for a missing or broken ref.py), again on every later call.
  ReferenceRunner& get();
  /// True when get() would not wait: the load has ended (loaded or failed).
  bool ready() const;
  /// True once get() has thrown: ref.py could not be loaded, so no version can be checked.
  bool load_failed() const { return error_ != nullptr; }

 private:
  std::future<std::unique_ptr<ReferenceRunner>> future_;
  std::unique_ptr<ReferenceRunner> ref_;
  std::exception_ptr error_;  ///< what the load threw (a future gives its result only once)
};

}  // namespace kprof
