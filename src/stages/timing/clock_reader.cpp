#include "stages/timing/clock_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace kprof {

ClockReader::ClockReader(int gpu, SmClockRecord& c) : gpu_(gpu), c_(c) {
  std::string why;
  nvml_ = Nvml::get(&why);
  if (!nvml_) {
    c_.note = "SM clock not recorded: " + why;
    return;
  }
  if (auto clk = nvml_->clocks(gpu)) c_.max_mhz = clk->sm_max_mhz;
  power_limit_w_ = nvml_->power_limit_w(gpu);
  if (std::getenv("CUDA_VISIBLE_DEVICES"))
    c_.note = fmt::format(
        "SM clock read from NVML GPU {}; CUDA_VISIBLE_DEVICES is set, so NVML's "
        "GPU {} may not be CUDA device {}",
        gpu, gpu, gpu);
}

NvmlSample ClockReader::quick() {
  NvmlSample s;
  if (!nvml_) return s;
  s.sm_mhz = nvml_->sm_clock_mhz(gpu_);
  s.reasons = nvml_->clock_event_reasons(gpu_);
  if (s.sm_mhz) {
    c_.min_seen = c_.min_seen ? std::min(*c_.min_seen, *s.sm_mhz) : *s.sm_mhz;
    c_.max_seen = c_.max_seen ? std::max(*c_.max_seen, *s.sm_mhz) : *s.sm_mhz;
  }
  return s;
}

std::unique_ptr<BackgroundSampler> ClockReader::start_sampler() const {
  if (!nvml_) return nullptr;
  Nvml* n = nvml_;
  int g = gpu_;
  auto b = std::make_unique<BackgroundSampler>([n, g] { return n->sample(g); }, kClockSamplePeriodMs);
  b->start();
  return b;
}

std::vector<CallConditions> PassConditions::finish(ClockSummary* summary, std::optional<double> power_limit) {
  if (!sampler) return std::vector<CallConditions>(windows.size());
  sampler->stop();
  if (summary) *summary = summarize_clock_samples(sampler->samples(), sampler->period_ms(), power_limit);
  return conditions_per_call(windows, after, sampler->samples());
}

}  // namespace kprof
