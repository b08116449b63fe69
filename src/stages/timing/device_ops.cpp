#include "stages/timing/device_ops.hpp"

#include "kernel/guarded_call.hpp"
#include "device/l2_flush.hpp"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "device/cuda.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/text.hpp"

namespace kprof {

L2Flusher::L2Flusher(size_t l2_bytes, bool enabled) {
  if (!enabled || l2_bytes == 0) return;
  bytes_ = 2 * l2_bytes;
  auto scratch = DeviceArray::try_allocate(bytes_);
  if (!scratch) {
    throw check_failed(fmt::format("cannot allocate the {} scratch buffer that flushes L2 between timed calls",
                                   fmt_bytes(static_cast<double>(bytes_))),
                       "free GPU memory, or pass --no-l2-flush (timings then include warm-L2 effects)");
  }
  scratch_ = std::move(*scratch);
  cuda_check(cudaMemset(scratch_.get(), 0x5a, bytes_), "initialising the L2-flush scratch buffer");
}

void L2Flusher::flush(cudaStream_t stream) {
  if (!scratch_.get()) return;
  cudaError_t rc = cudaCtxResetPersistingL2Cache();
  if (rc != cudaSuccess) {
    cudaGetLastError();
    if (note_.empty())
      note_ = std::string("cudaCtxResetPersistingL2Cache failed (") + cudaGetErrorName(rc) +
              "): a persisting-L2 window set by the kernel may survive the flush";
  }
  // Read, not write: the L2 must end up holding clean lines, or the timed kernel pays for writing
  // the flush's dirty lines back to DRAM (device/l2_flush.cu).
  cuda_check(launch_l2_read_flush(scratch_.get(), bytes_, stream), "flushing L2 between timed calls");
}

void wait_device_idle(int gpu, double limit_ms, const std::string& what) {
  (void)gpu;  // guarded_sync synchronises the caller's current device, which is `gpu`
  if (auto f = guarded_sync(limit_ms / 1000.0, what)) {
    if (f->kind == FaultKind::Timeout)
      throw check_failed(fmt::format("{} did not finish within the per-call limit of {}: the kernel may hang "
                                     "(the GPU can still be running it)",
                                     what, fmt_duration_ms(limit_ms)),
                         "check the kernel for an endless loop or a deadlock; if it is just slow, raise --timeout");
    throw check_failed(f->message, f->hint);
  }
}

bool gpu_left_busy() { return hard_exit_requested(); }

void check_launch(const std::string& what, int kernel_runtime_error) {
  cudaError_t rc = cudaGetLastError();
  if (rc == cudaSuccess) rc = static_cast<cudaError_t>(kernel_runtime_error);
  if (rc == cudaSuccess) return;
  throw check_failed(
      fmt::format("{}: kernel launch failed: {}: {}", what, cudaGetErrorName(rc), cudaGetErrorString(rc)),
      "check the launch configuration in solve (grid/block sizes, shared memory); "
      "`kprof check` reports the same error on the first call");
}

EventPair::EventPair() {
  cuda_check(cudaEventCreate(&start), "cudaEventCreate");
  cuda_check(cudaEventCreate(&stop), "cudaEventCreate");
}

EventPair::~EventPair() {
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

}  // namespace kprof
