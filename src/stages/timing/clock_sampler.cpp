#include "stages/timing/clock_sampler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

namespace kprof {

namespace {

using Clock = std::chrono::steady_clock;

void add(SampledRange& r, double v, double& sum) {
  r.min = r.min ? std::min(*r.min, v) : v;
  r.max = r.max ? std::max(*r.max, v) : v;
  sum += v;
  ++r.n;
}

void finish(SampledRange& r, double sum) {
  if (r.n) r.mean = sum / static_cast<double>(r.n);
}

}  // namespace

ClockSummary summarize_clock_samples(const std::vector<ClockSample>& samples, double period_ms,
                                     std::optional<double> power_limit_w) {
  ClockSummary s;
  s.samples = samples.size();
  s.period_ms = period_ms;
  s.power_limit_w = power_limit_w;
  if (samples.empty()) {
    s.note = "no NVML sample was taken during the timed calls";
    return s;
  }
  s.span_ms = samples.back().t_ms - samples.front().t_ms;
  double sm = 0, mem = 0, pw = 0, tc = 0;
  for (const auto& c : samples) {
    if (c.v.sm_mhz) add(s.sm_mhz, *c.v.sm_mhz, sm);
    if (c.v.mem_mhz) add(s.mem_mhz, *c.v.mem_mhz, mem);
    if (c.v.power_w) add(s.power_w, *c.v.power_w, pw);
    if (c.v.temp_c) add(s.temp_c, *c.v.temp_c, tc);
    if (!c.v.reasons) continue;
    ++s.reason_samples;
    if (nvml_reasons_throttle(*c.v.reasons)) ++s.throttled;
    for (const auto& b : nvml_reason_bits())
      if (*c.v.reasons & b.bit) ++s.reason_counts[b.bit];
  }
  finish(s.sm_mhz, sm);
  finish(s.mem_mhz, mem);
  finish(s.power_w, pw);
  finish(s.temp_c, tc);
  return s;
}

std::string reason_text(const ClockSummary& s) {
  if (s.reason_samples == 0) return "clock event reasons not readable";
  std::vector<std::string> throttling, other;
  for (const auto& [bit, n] : s.reason_counts) {
    std::string part = fmt::format("{} in {} of {} samples", nvml_reason_names(bit), n, s.reason_samples);
    (nvml_reasons_throttle(bit) ? throttling : other).push_back(part);
  }
  if (throttling.empty() && other.empty()) return "no clock event reason in any sample";
  std::string out;
  for (const auto* list : {&throttling, &other})
    for (const auto& p : *list) out += (out.empty() ? "" : "; ") + p;
  if (throttling.empty()) out += " (no throttling reason)";
  return out;
}

BackgroundSampler::BackgroundSampler(std::function<NvmlSample()> read, double period_ms)
    : read_(std::move(read)), period_ms_(period_ms) {}

BackgroundSampler::~BackgroundSampler() { stop(); }

void BackgroundSampler::start() {
  if (running_.exchange(true)) return;
  samples_.clear();
  t0_ = Clock::now();
  thread_ = std::thread([this] { loop(); });
}

void BackgroundSampler::stop() {
  if (!running_.exchange(false)) return;
  if (thread_.joinable()) thread_.join();
}

double BackgroundSampler::ms_since_start() const {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0_).count();
}

void BackgroundSampler::loop() {
  const auto t0 = t0_;
  const auto period = std::chrono::duration<double, std::milli>(period_ms_);
  auto next = t0;
  while (true) {
    bool last = !running_.load();
    ClockSample c;
    c.v = read_();
    c.t_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    samples_.push_back(c);
    if (last) break;
    next += std::chrono::duration_cast<Clock::duration>(period);
    // Sleep in short steps so stop() returns within a millisecond of being called.
    while (running_.load() && Clock::now() < next)
      std::this_thread::sleep_for(std::min<Clock::duration>(next - Clock::now(), std::chrono::milliseconds(1)));
  }
}

}  // namespace kprof
