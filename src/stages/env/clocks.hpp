// `kprof clocks`: show, lock (at the base clock by default, as nvbench advises; --max at the maximum
// SM clock, the seed's enc_config step) or reset the
// SM clocks of one GPU. The NVML calls sit behind ClockControl so the tests drive a fake and
// never change a real GPU's clocks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "device/gpu_index.hpp"
#include "stages/env/nvml.hpp"

namespace kprof {

/// The clock operations `kprof clocks` needs, for ONE GPU.
class ClockControl {
 public:
  virtual ~ClockControl() = default;
  /// "" when the clocks can be read; else why not ("libnvidia-ml.so.1 not found: no NVIDIA driver").
  virtual std::string unavailable_reason() const = 0;
  /// "GPU 0 (NVML index 0, NVIDIA H200)": how reports name the GPU.
  virtual std::string label() const = 0;
  /// Current and maximum SM / memory clocks in MHz, nullopt when unreadable.
  virtual std::optional<GpuClocks> clocks() const = 0;
  /// NVML clock event reasons mask (bit 0x2: user-defined clocks such as a lock), or nullopt.
  virtual std::optional<uint64_t> clock_event_reasons() const = 0;
  /// nvmlDeviceSetGpuLockedClocks(min_mhz, max_mhz): "" on success, else NVML's error string.
  virtual std::string lock_sm_clock(unsigned min_mhz, unsigned max_mhz) = 0;
  /// nvmlDeviceResetGpuLockedClocks: "" on success, else NVML's error string.
  virtual std::string reset_sm_clock() = 0;
};

/// ClockControl over the real NVML for CUDA device `cuda_index` (mapped to NVML's index by PCI
/// bus id, see nvml_index_for_cuda_device).
class NvmlClockControl : public ClockControl {
 public:
  explicit NvmlClockControl(int cuda_index);
  std::string unavailable_reason() const override { return why_; }
  std::string label() const override { return label_; }
  std::optional<GpuClocks> clocks() const override;
  std::optional<uint64_t> clock_event_reasons() const override;
  std::string lock_sm_clock(unsigned min_mhz, unsigned max_mhz) override;
  std::string reset_sm_clock() override;

 private:
  Nvml* nvml_ = nullptr;
  int nvml_index_ = -1;
  std::string why_, label_;
};

/// What `kprof clocks` was asked to do.
enum class ClocksAction { Show, Lock, Reset };

/// One `kprof clocks` request.
struct ClocksRequest {
  int gpu = kDefaultGpu;  ///< CUDA device index (--gpu)
  ClocksAction action = ClocksAction::Show;
  bool dry_run = false;  ///< print what would be done, change nothing (--dry-run)
  /// Lock at the maximum SM clock (--max) instead of the base clock. Base is the default: nvbench's
  /// advice for stable results (a base clock the GPU can hold under any load, where boost clocks
  /// fall away under the power cap).
  bool max = false;
};

/// NVML's "the TDP (base) clock" value for nvmlDeviceSetGpuLockedClocks (nvml.h
/// NVML_CLOCK_LIMIT_ID_TDP): locking both bounds to it is `nvbench --lgc base`.
inline constexpr unsigned kNvmlClockLimitIdTdp = 0xffffff01u;

/// Carries out `req` on `ctl`, appending the human-readable lines to `out` as it goes (current
/// clocks, then what it did or, with dry_run, exactly what it would do). Returns 0.
/// Throws Error (exit 1) when the clocks cannot be read (also with dry_run, after printing what it
/// would do), when the maximum SM clock is unknown, or when NVML refuses the change (the hint
/// says what to do: root for "Insufficient Permissions", a note for "Not Supported").
int run_clocks(ClockControl& ctl, const ClocksRequest& req, std::string& out);

/// One-line hint for an NVML error returned by a lock / reset.
std::string clock_error_hint(const std::string& nvml_error, ClocksAction action);

}  // namespace kprof
