#include "stages/env/clocks.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/text.hpp"
#include "stages/env/gpu_info.hpp"

namespace kprof {

NvmlClockControl::NvmlClockControl(int cuda_index) {
  label_ = "GPU " + std::to_string(cuda_index);
  nvml_ = Nvml::get(&why_);
  if (!nvml_) return;
  std::string note;
  nvml_index_ = nvml_index_for_cuda_device(cuda_index, &note);
  if (nvml_index_ < 0 || static_cast<unsigned>(nvml_index_) >= nvml_->device_count()) {
    why_ = "NVML has no GPU for CUDA device " + std::to_string(cuda_index) + " (" +
           std::to_string(nvml_->device_count()) + " GPU(s) in NVML)" + (note.empty() ? "" : ": " + note);
    nvml_ = nullptr;
    return;
  }
  std::string name = nvml_->device_name(nvml_index_);
  label_ += " (NVML index " + std::to_string(nvml_index_) + (name.empty() ? "" : ", " + name) + ")";
}

std::optional<GpuClocks> NvmlClockControl::clocks() const {
  if (!nvml_) return std::nullopt;
  return nvml_->clocks(nvml_index_);
}

std::optional<uint64_t> NvmlClockControl::clock_event_reasons() const {
  if (!nvml_) return std::nullopt;
  return nvml_->clock_event_reasons(nvml_index_);
}

std::string NvmlClockControl::lock_sm_clock(unsigned min_mhz, unsigned max_mhz) {
  return nvml_ ? nvml_->lock_sm_clock(nvml_index_, min_mhz, max_mhz) : why_;
}

std::string NvmlClockControl::reset_sm_clock() { return nvml_ ? nvml_->reset_sm_clock(nvml_index_) : why_; }

std::string clock_error_hint(const std::string& err, ClocksAction action) {
  std::string l = to_lower(err);
  const char* flag = action == ClocksAction::Reset ? "--reset" : "--lock";
  if (l.find("permission") != std::string::npos)
    return std::string("changing GPU clocks needs root: run `sudo kprof clocks ") + flag +
           "` (or ask an administrator; `nvidia-smi --lock-gpu-clocks` needs the same)";
  if (l.find("not supported") != std::string::npos)
    return "this GPU or its virtualization (vGPU, MIG, some containers) does not allow clock locking; "
           "measure unlocked and compare runs at the same clock";
  return "check `nvidia-smi -q -d CLOCK`; NVML said: " + err;
}

namespace {

std::string clocks_lines(const ClockControl& ctl) {
  std::string s;
  auto c = ctl.clocks();
  if (!c) return "  clocks: unreadable\n";
  s += fmt::format("  SM clock:     {} MHz (max {} MHz)\n", c->sm_mhz, c->sm_max_mhz);
  s += fmt::format("  memory clock: {} MHz (max {} MHz)\n", c->mem_mhz, c->mem_max_mhz);
  if (auto r = ctl.clock_event_reasons())
    s += std::string("  user-defined clocks (lock or application clocks): ") +
         ((*r & kNvmlReasonUserDefinedClocks) ? "active" : "not active") +
         fmt::format(" (NVML clock event reasons 0x{:x})\n", *r);
  else
    s += "  user-defined clocks (lock): unknown (NVML gave no clock event reasons)\n";
  return s;
}

}  // namespace

int run_clocks(ClockControl& ctl, const ClocksRequest& req, std::string& out) {
  std::string why = ctl.unavailable_reason();
  std::optional<GpuClocks> c;
  if (why.empty()) c = ctl.clocks();
  if (why.empty() && !c) why = "NVML could not read the clocks of " + ctl.label();
  const unsigned max_mhz = c ? c->sm_max_mhz : 0;
  std::string max_text = c ? std::to_string(max_mhz) : "<max SM clock>";
  const bool base = !req.max;
  const std::string lock_arg = base ? "NVML_CLOCK_LIMIT_ID_TDP" : max_text;
  std::string lock_call = "nvmlDeviceSetGpuLockedClocks(" + ctl.label() + ", " + lock_arg + ", " + lock_arg + ")";
  const std::string at_what = base ? "its base (TDP) clock" : "its maximum";
  std::string reset_call = "nvmlDeviceResetGpuLockedClocks(" + ctl.label() + ")";
  const std::string hint_no_nvml =
      "NVML (libnvidia-ml.so.1) comes with the NVIDIA driver: run on the GPU machine; `kprof env` shows what is "
      "missing";

  if (!why.empty()) {
    // The error itself goes to stderr once (the thrown Error); a dry run still says what it would do.
    if (req.dry_run && req.action == ClocksAction::Lock)
      out += "would lock the SM clock at " + at_what + ": " + lock_call + "\n";
    if (req.dry_run && req.action == ClocksAction::Reset)
      out += "would restore the default clocks: " + reset_call + "\n";
    if (req.dry_run) out += "dry run: nothing changed\n";
    throw check_failed("cannot read the clocks of " + ctl.label() + ": " + why, hint_no_nvml);
  }
  out += ctl.label() + "\n" + clocks_lines(ctl);
  if (req.action == ClocksAction::Show) return 0;

  if (req.action == ClocksAction::Lock) {
    if (!base && max_mhz == 0) throw check_failed("NVML reports no maximum SM clock for " + ctl.label(), hint_no_nvml);
    const std::string target = base ? at_what : at_what + ", " + max_text + " MHz";
    if (req.dry_run) {
      out += "would lock the SM clock at " + target + ": " + lock_call + "\n";
      if (base) out += "(nvbench's `--lgc base`; --max locks at the maximum SM clock instead)\n";
      out += "dry run: nothing changed (undo a real lock with `kprof clocks --reset`)\n";
      return 0;
    }
    const unsigned v = base ? kNvmlClockLimitIdTdp : max_mhz;
    std::string err = ctl.lock_sm_clock(v, v);
    if (!err.empty())
      throw check_failed("cannot lock the SM clock of " + ctl.label() + " at " + target + ": NVML: " + err,
                         clock_error_hint(err, req.action));
    out += "locked the SM clock at " + target + ": " + lock_call + "\n";
  } else {
    if (req.dry_run) {
      out += "would restore the default clocks: " + reset_call + "\ndry run: nothing changed\n";
      return 0;
    }
    std::string err = ctl.reset_sm_clock();
    if (!err.empty())
      throw check_failed("cannot reset the clocks of " + ctl.label() + ": NVML: " + err,
                         clock_error_hint(err, req.action));
    out += "restored the default clocks: " + reset_call + "\n";
  }
  out += "now:\n" + clocks_lines(ctl);
  if (req.action == ClocksAction::Lock)
    out += "undo with `kprof clocks --reset` (a reboot or driver reload also resets it)\n";
  return 0;
}

}  // namespace kprof
