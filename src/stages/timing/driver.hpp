// The driver that calls the kernel between kprof's restore and flush steps, shared by the timing
// stage's passes (timing.cpp, duration_pass.cpp). Internal to stages/timing: the public interface
// is timing.hpp.
#pragma once

#include <cuda_runtime_api.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include "device/cuda.hpp"
#include "stages/timing/device_ops.hpp"
#include "stages/timing/input_sets.hpp"
#include "kernel/kernel_instance.hpp"

namespace kprof {

/// Calls the kernel between kprof's restore/flush steps.
class Driver {
 public:
  /// `call_timeout_ms`: how long one call may run before it counts as hung (TimingOptions).
  Driver(KernelInstance& k, double call_timeout_ms, int gpu, const InputSets& sets, L2Flusher& flush)
      : k_(k), call_timeout_ms_(call_timeout_ms), gpu_(gpu), sets_(sets), flush_(flush) {}

  /// Restores input set `set`, flushes L2 and waits for both (outside every timed window).
  void between_calls(int set = 0) {
    sets_.restore(set, cudaStreamLegacy);
    flush_.flush(cudaStreamLegacy);
    cuda_check(cudaDeviceSynchronize(), "waiting for kprof's restore/flush between timed calls");
  }

  /// The host call plus its launch check (inside the timed window).
  void call(const std::string& what) {
    k_.call();
    check_launch(what, k_.take_launch_error());
  }

  /// Waits (bounded) until the call's GPU work, on any stream, is done.
  void wait(const std::string& what) { wait_device_idle(gpu_, call_timeout_ms_, what); }

  void full_call(const std::string& what) {
    between_calls();
    call(what);
    wait(what);
  }

  /// Input sets to rotate over: at least 1 (without restore there are no copies, every call is "set 0").
  int sets() const { return std::max(1, sets_.sets()); }

  /// The input set of call `i` (0-based) of a pass of `n` calls that rotates over the sets and
  /// ends on set 1 (a set the check computed the reference for; set 0 when there is one set).
  int set_ending_on_one(int i, int n) const {
    const int sets_n = sets(), last = sets_n > 1 ? 1 : 0;
    return ((i - (n - 1) + last) % sets_n + sets_n) % sets_n;
  }

 private:
  KernelInstance& k_;
  double call_timeout_ms_;
  int gpu_;
  const InputSets& sets_;
  L2Flusher& flush_;
};

/// Warm-up calls through `d`: exactly `calls` when set; else after the first call (which absorbs
/// Triton compilation and autotuning, however long they take) until `ms` have passed since it
/// returned and at least `min_calls` ran (TimingOptions' warm-up). Returns the calls made and
/// their wall time, ms.
inline std::pair<int, double> warm_up_calls(Driver& d, std::optional<int> calls, double ms, int min_calls) {
  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); };
  const auto t0 = Clock::now();
  int n = 0;
  auto what = [&n] { return fmt::format("warm-up call {}", n + 1); };
  if (calls) {
    for (; n < *calls; ++n) d.full_call(what());
  } else {
    Clock::time_point first_done;
    while (true) {
      d.full_call(what());
      if (++n == 1) first_done = Clock::now();
      if (n >= min_calls && since(first_done) >= ms) break;
    }
  }
  return {n, since(t0)};
}

/// Resets persisting-L2 lines (outside every timed window); an error is cleared and ignored.
inline void reset_persisting_l2() {
  if (cudaCtxResetPersistingL2Cache() != cudaSuccess) cudaGetLastError();
}

}  // namespace kprof
