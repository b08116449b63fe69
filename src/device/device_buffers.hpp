// The device memory of one BufferPlan: one cudaMalloc per buffer, laid out as
// [guard zone | payload | guard zone], freed on destruction (RAII on every path).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "device/buffer_plan.hpp"
#include "device/buffer_view.hpp"

namespace kprof {

/// GPU memory kprof leaves unclaimed when checking that a plan fits: 256 MiB for the kernel's own
/// workspace, cuBLAS/PyTorch handles and the CUDA context's growth.
constexpr size_t kMemoryReserveBytes = size_t{256} << 20;

/// What a plan needs in device memory, in bytes.
struct MemoryNeed {
  size_t buffers = 0;  ///< sum of payloads
  size_t guards = 0;   ///< 2 * kGuardBytes per buffer
  size_t copies = 0;   ///< extra_copies * buffers (copies the caller will make: reference inputs, restores)
  size_t reserve = kMemoryReserveBytes;
  size_t total() const { return buffers + guards + copies + reserve; }
};

/// The memory `plan` needs when the caller will also make `extra_copies` copies of the payloads
/// (e.g. 2: one for the reference's inputs, one to restore outputs between timed calls).
MemoryNeed memory_need(const BufferPlan& plan, double extra_copies);

/// Throws Error (exit 1) when memory_need(plan, extra_copies).total() exceeds `free_bytes`; the
/// message gives the need, its parts and the free memory, and names the largest buffer with its
/// element count and size; the hint says how to shrink it (--ptr-size, --size NAME=EXPR).
void check_fits(const BufferPlan& plan, double extra_copies, size_t free_bytes);

/// Device buffers with guard zones for one plan, on the current GPU.
class DeviceBuffers {
 public:
  /// Checks the plan fits in free memory (cudaMemGetInfo, check_fits) before allocating
  /// anything, then allocates every buffer and arms its guard zones; payloads are uninitialised.
  /// Throws Error (exit 1) when it does not fit or a cudaMalloc fails (naming the buffer); nothing
  /// stays allocated then.
  DeviceBuffers(BufferPlan plan, double extra_copies);
  ~DeviceBuffers();
  DeviceBuffers(const DeviceBuffers&) = delete;
  DeviceBuffers& operator=(const DeviceBuffers&) = delete;

  const BufferPlan& plan() const { return plan_; }
  /// Device address of buffer `i`'s first element (256-byte aligned; never null, even for 0 elements).
  void* data(size_t i) const;
  /// One view per buffer, in plan order.
  std::vector<BufferView> views() const;

  /// Fills every buffer with seeded random data (fill_seeded, buffer number = plan index), then
  /// synchronises the device so a kernel on any stream sees the data. Throws Error (exit 1).
  void fill_seeded(uint64_t seed);

  /// Writes the guard patterns into every zone (synchronous). Throws Error (exit 1).
  void arm_guards();

  /// Reads every zone back (synchronous; waits for running kernels) and returns the violations,
  /// in plan order, the zone before a buffer first. Throws Error (exit 1) when the copy fails (for
  /// example after a kernel fault).
  std::vector<GuardViolation> check_guards() const;

 private:
  struct Region;
  BufferPlan plan_;
  std::vector<std::unique_ptr<Region>> regions_;
};

}  // namespace kprof
