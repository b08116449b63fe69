// The CUDA work the timing stage does between timed calls (never inside a timed window):
// flushing L2, waiting for the device with a deadline, reading the launch error (the restores of
// the buffers between calls are stages/timing/input_sets.hpp).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <vector>

#include "device/buffer_view.hpp"
#include "device/device_array.hpp"

namespace kprof {

/// Evicts the kernel's data from L2 between calls: reads a scratch buffer of twice the L2 size
/// (the kernel of device/l2_flush.hpp, so L2 is left holding clean lines; source of the size:
/// cudaDevAttrL2CacheSize via gpu_l2_bytes) after resetting any persisting-L2 lines
/// (cudaCtxResetPersistingL2Cache), so an access-policy window set by the kernel cannot keep its
/// data resident.
class L2Flusher {
 public:
  /// Allocates 2 * `l2_bytes` of scratch on the current device when `enabled`. Throws Error
  /// (exit 1) with a hint to pass --no-l2-flush when the scratch cannot be allocated.
  L2Flusher(size_t l2_bytes, bool enabled);
  L2Flusher(const L2Flusher&) = delete;
  L2Flusher& operator=(const L2Flusher&) = delete;

  /// Resets persisting L2 lines and enqueues a read of the whole scratch buffer on `stream`
  /// (device/l2_flush.hpp; no-op when disabled): L2 then holds clean scratch lines only.
  /// Throws Error (exit 1) when the flush kernel cannot be launched.
  void flush(cudaStream_t stream);

  /// Bytes read per flush (0 when disabled).
  size_t bytes() const { return bytes_; }
  /// Non-empty when cudaCtxResetPersistingL2Cache failed once (the flush still runs).
  const std::string& note() const { return note_; }

 private:
  DeviceArray scratch_;
  size_t bytes_ = 0;
  std::string note_;
};

/// Waits until the whole device is idle (all streams, including non-blocking ones) for at most
/// `limit_ms` ms: a helper thread blocks in cudaDeviceSynchronize while this thread polls it, so
/// a hung kernel never hangs kprof. Throws Error (exit 1) "<what> did not finish within <limit>"
/// on timeout (the helper thread is left behind and gpu_left_busy() turns true), or with the CUDA
/// error (a kernel fault such as cudaErrorIllegalAddress) when the device reports one.
void wait_device_idle(int gpu, double limit_ms, const std::string& what);

/// True once wait_device_idle() gave up on a kernel in this process: the GPU may still run it.
/// cudaFree and context teardown wait for the device then, so kprof's own destructors skip their
/// cudaFree (the memory is leaked), and the CLI should end with std::_Exit after reporting.
bool gpu_left_busy();

/// Throws Error (exit 1) naming `what` when cudaGetLastError() reports a launch error (e.g.
/// cudaErrorInvalidConfiguration from a block of 2048 threads), which otherwise fails silently.
/// `kernel_runtime_error` is what the kernel's own runtime recorded
/// (KernelInstance::take_launch_error(): a .so carries its own static cudart).
void check_launch(const std::string& what, int kernel_runtime_error = 0);

/// A pair of CUDA events (start, stop), created with the object and destroyed with it.
/// Throws Error (exit 1) when an event cannot be created.
struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  EventPair();
  ~EventPair();
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
};

}  // namespace kprof
