#include "report/timing_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "core/text.hpp"
#include "stages/timing/cupti_session.hpp"
#include "stages/timing/gpu_duration.hpp"

namespace kprof {

namespace {

std::string pct(double fraction) {
  if (std::isnan(fraction)) return "n/a";
  return fmt::format("{:.1f}%", 100.0 * fraction);
}

std::string dur(double ms) { return std::isnan(ms) ? "n/a" : fmt_duration_ms(ms); }

nlohmann::json num(double v) { return std::isnan(v) ? nlohmann::json() : nlohmann::json(v); }

nlohmann::json stats_json(const SampleStats& s) {
  return {{"n", s.n},          {"median", num(s.median)}, {"mean", num(s.mean)}, {"stddev", num(s.stddev)},
          {"min", num(s.min)}, {"max", num(s.max)},       {"cv", num(s.cv)}};
}

nlohmann::json opt_json(const std::optional<unsigned>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

std::string mhz(const std::optional<unsigned>& v) { return v ? fmt::format("{} MHz", *v) : "n/a"; }

std::string stream_label(const KernelNameStats& k, const std::optional<uint32_t>& def) {
  std::vector<std::string> parts;
  for (uint32_t s : k.streams) {
    if (!def)
      parts.push_back(fmt::format("CUPTI id {}", s));  // default stream unknown
    else
      parts.push_back(s == *def ? "default" : fmt::format("other (CUPTI id {})", s));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string range_text(const SampledRange& r, const char* unit, int decimals = 0) {
  if (!r.n) return "n/a";
  return fmt::format("{:.{}f}-{:.{}f} {} (mean {:.{}f})", *r.min, decimals, *r.max, decimals, unit, *r.mean, decimals);
}

nlohmann::json range_json(const SampledRange& r) {
  if (!r.n) return nullptr;
  return {{"min", *r.min}, {"max", *r.max}, {"mean", *r.mean}, {"n", r.n}};
}

std::string warmup_text(const TimingResult& r) {
  const TimingOptions& o = r.options;
  std::string how = o.warmup_calls ? fmt::format("by count: --warmup {}", *o.warmup_calls)
                                   : fmt::format("by time: >= {} after the first call and >= {} calls",
                                                 fmt_duration_ms(o.warmup_ms), o.min_warmup_calls);
  return fmt::format("{} calls in {} ({})", r.warmup_calls, fmt_duration_ms(r.warmup_ms), how);
}

}  // namespace

std::string during_text(const ClockSummary& d) {
  if (d.samples == 0) return "During the timed calls: not sampled (" + d.note + ").";
  std::string s = fmt::format(
      "During the timed calls (NVML sampled every {} ms by a thread, {} samples over {}): "
      "SM clock {}, memory clock {}, power {}",
      fmt_sig(d.period_ms, 3), d.samples, fmt_duration_ms(d.span_ms), range_text(d.sm_mhz, "MHz"),
      range_text(d.mem_mhz, "MHz"), range_text(d.power_w, "W", 0));
  if (d.power_limit_w) s += fmt::format(" against a {:.0f} W limit", *d.power_limit_w);
  if (d.power_w.n) s += " (NVML's power reading is averaged over a window and lags the kernel)";
  s += fmt::format(", temperature {}; clock event reasons: {}.", range_text(d.temp_c, "C"), reason_text(d));
  return s;
}

nlohmann::json during_json(const ClockSummary& d) {
  nlohmann::json reasons = nlohmann::json::object();
  for (const auto& [bit, n] : d.reason_counts) reasons[nvml_reason_names(bit)] = n;
  return {{"samples", d.samples},
          {"period_ms", d.period_ms},
          {"span_ms", d.span_ms},
          {"sm_clock_mhz", range_json(d.sm_mhz)},
          {"memory_clock_mhz", range_json(d.mem_mhz)},
          {"power_w", range_json(d.power_w)},
          {"power_limit_w", d.power_limit_w ? nlohmann::json(*d.power_limit_w) : nlohmann::json()},
          {"temperature_c", range_json(d.temp_c)},
          {"reason_samples", d.reason_samples},
          {"reasons", reasons},
          {"throttled_samples", d.throttled},
          {"note", d.note}};
}

std::vector<std::string> timing_findings(const TimingResult& r) {
  std::vector<std::string> out;
  const auto& k = r.kernel;
  const auto& s = k.summary;
  if (r.call_unstable)
    out.push_back(
        fmt::format("Call time is unstable: CV {} > {} (spread from {} to {}). Lock the SM clock (`kprof clocks`), "
                    "stop other work on the GPU, or raise --iters.",
                    pct(r.call.cv), pct(kUnstableCv), dur(r.call.min), dur(r.call.max)));
  if (r.kernel_unstable)
    out.push_back(fmt::format("Kernel time is unstable: CV {} > {} (spread from {} to {}).", pct(s.sum.cv),
                              pct(kUnstableCv), dur(s.sum.min), dur(s.sum.max)));
  if (r.overhead_dominates)
    out.push_back(fmt::format(
        "Launch or host overhead dominates: the kernels take {} of a {} call ({}; rule: kernel time "
        "< {} of the call time). Look at the host side of the call (launch count, allocations, "
        "synchronisations, Python) before the kernel.",
        dur(s.sum.median), dur(r.call.median), pct(s.sum.median / r.call.median), pct(kOverheadKernelShare)));
  if (r.kernels_exceed_call)
    out.push_back(
        fmt::format("GPU busy time ({}) exceeds the call time ({}) by more than {}: kernels ran outside the "
                    "window of the events on the legacy default stream (a non-blocking stream). The kernel "
                    "time counts them; the call time does not.",
                    dur(s.busy.median), dur(r.call.median), pct(kEscapeMargin)));
  if (k.available && !s.other_streams.empty())
    out.push_back(
        fmt::format("CUPTI saw kernels on streams other than the legacy default stream (CUPTI ids {}): the "
                    "events wait for blocking streams but not for non-blocking ones, which only the kernel "
                    "time includes. The kernel-time pass also runs kernels one after another (CUPTI's "
                    "serialized KERNEL records), so kernels that overlap across streams in a real call are "
                    "summed there: the call time keeps their overlap.",
                    fmt::join(s.other_streams, ", ")));
  for (const auto& f : sampling_findings(r)) out.push_back(f);
  if (out.empty()) {
    std::string share = k.available && r.call.median > 0
                            ? fmt::format(", kernels take {} of the call time", pct(s.sum.median / r.call.median))
                            : "";
    out.push_back(
        fmt::format("No timing issue: call time stable (CV {} <= {}){}.", pct(r.call.cv), pct(kUnstableCv), share));
  }
  return out;
}

std::string cache_control_text(const GpuDurationResult& g) {
  const std::string v = cupti_version_text(g.cupti_version);
  if (g.cache_control)
    return fmt::format(
        "GPU duration cache control: CUPTI {} reset the L2 before each kernel (its range "
        "profiler's cache control, as ncu's --cache-control all does for the L2), after kprof's flush.",
        v);
  if (!g.cache_control_asked) return "GPU duration cache control: none (--no-l2-flush).";
  return fmt::format(
      "GPU duration cache control: kprof's L2 flush between calls (CUPTI {} has no cache control; with "
      "CUPTI 13.4+, bash scripts/setup.sh --cupti, CUPTI also resets the L2 before each kernel).",
      v);
}

std::string timing_markdown(const TimingResult& r) {
  const auto& k = r.kernel;
  const auto& s = k.summary.sum;
  auto kcol = [&](const std::string& v) { return k.available ? v : std::string("n/a"); };
  const GpuDurationResult& g = r.gpu_duration;
  const SampleStats& gs = g.sum;
  auto gcol = [&](const std::string& v) { return g.available ? v : std::string("n/a"); };
  std::vector<std::vector<std::string>> rows = {
      {"Median", dur(r.call.median), kcol(dur(s.median)), gcol(dur(gs.median))},
      {"Mean", dur(r.call.mean), kcol(dur(s.mean)), gcol(dur(gs.mean))},
      {"Std dev", dur(r.call.stddev), kcol(dur(s.stddev)), gcol(dur(gs.stddev))},
      {"Min", dur(r.call.min), kcol(dur(s.min)), gcol(dur(gs.min))},
      {"Max", dur(r.call.max), kcol(dur(s.max)), gcol(dur(gs.max))},
      {"CV (std dev / mean)", pct(r.call.cv) + (r.call_unstable ? " (unstable)" : ""),
       kcol(pct(s.cv) + (r.kernel_unstable ? " (unstable)" : "")), gcol(pct(gs.cv))},
      {"Calls", std::to_string(r.call.n), kcol(std::to_string(s.n)), gcol(std::to_string(gs.n))}};
  std::string md = "## Execution time\n\n";
  md += markdown_table({"", "Call time (CUDA events)", "Kernel time (CUPTI records, sum per call)",
                        fmt::format("GPU duration ({}, sum per call)", kGpuDurationLabel)},
                       rows);
  md +=
      "\nCall time: CUDA events on the legacy default stream around one call (host launch code "
      "included). Kernel time: the GPU duration of every kernel the call launched, on any "
      "stream, summed per call (CUPTI KERNEL activity records: kernels serialized and timed "
      "by the GPU front end; measured in a second pass because CUPTI adds launch overhead). GPU "
      "duration: ncu's metric " +
      std::string(kGpuDurationMetric) +
      " of every kernel, summed per call, read by CUPTI's "
      "range profiler in a third pass (one range per kernel, kernel replay; the records run about 0.5 us "
      "longer per kernel). Versions and the time bound use the GPU duration when it was read, else the "
      "kernel time.\n";
  if (!k.available) md += "\nKernel time not available: " + k.note + "\n";
  if (!g.available) md += "\nGPU duration not available: " + g.note + "\n";
  if (!g.clock_mismatch.empty()) md += "\nGPU duration set aside: " + g.clock_mismatch + ".\n";
  if (g.available) md += "\n" + cache_control_text(g) + "\n";

  if (k.available && !k.summary.kernels.empty()) {
    std::vector<std::vector<std::string>> krows;
    double total = 0;
    for (const auto& kn : k.summary.kernels) total += kn.total_ms;
    for (const auto& kn : k.summary.kernels)
      krows.push_back({"`" + display_kernel_name(kn.name) + "`", fmt_sig(kn.launches_per_call, 4),
                       dur(kn.launch_ms.median), dur(kn.launch_ms.min), dur(kn.launch_ms.max),
                       dur(kn.per_call_ms_median), pct(total > 0 ? kn.total_ms / total : NAN),
                       stream_label(kn, k.default_stream)});
    md += "\n### Kernels per call (CUPTI)\n\n";
    md += markdown_table({"Kernel", "Launches per call", "Median per launch", "Min", "Max", "Median per call",
                          "Share of kernel time", "Stream"},
                         krows);
  }

  md += "\n### Findings\n\n";
  for (const auto& f : timing_findings(r)) md += "- " + f + "\n";
  md += "\n" + integrity_markdown(r.integrity);

  const TimingOptions& o = r.options;
  md += "\n### Method\n\n";
  md += "- Warm-up: " + warmup_text(r) + ".\n";
  md += "- " + sampling_text(r) + "\n";
  md += "- " + rotation_text(r) + "\n";
  md += r.l2_flush_bytes
            ? fmt::format(
                  "- L2: flushed before every call (a read of {} = 2 x {} L2, which leaves only clean lines; "
                  "persisting lines reset).\n",
                  fmt_bytes(static_cast<double>(r.l2_flush_bytes)), fmt_bytes(static_cast<double>(r.l2_bytes)))
            : std::string("- L2: not flushed between calls (warm-L2 timings).\n");
  md += r.restored.empty() ? std::string("- Outputs: not restored between calls.\n")
                           : fmt::format("- Outputs restored before every call: {}.\n", fmt::join(r.restored, ", "));
  md += fmt::format("- Per-call limit: {} for the GPU to finish after the host call returns.\n",
                    fmt_duration_ms(o.call_timeout_ms));
  const auto& c = r.sm_clock;
  md += fmt::format("- SM clock (NVML): {} before, {} after, {} to {} between calls; maximum {}.\n", mhz(c.before),
                    mhz(c.after), mhz(c.min_seen), mhz(c.max_seen), mhz(c.max_mhz));
  md += "- " + clocks_text(r) + "\n";
  md += "- " + during_text(r.during) + "\n";
  if (!r.notes.empty()) {
    md += "\n### Notes\n\n";
    for (const auto& n : r.notes) md += "- " + n + "\n";
  }
  return md;
}

nlohmann::json timing_json(const TimingResult& r) {
  const auto& k = r.kernel;
  const TimingOptions& o = r.options;
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& kn : k.summary.kernels) {
    nlohmann::json streams = nlohmann::json::array();
    for (uint32_t sid : kn.streams)
      streams.push_back({{"cupti_id", sid}, {"default", k.default_stream && sid == *k.default_stream}});
    kernels.push_back({{"name", kn.name},
                       {"launches", kn.launches},
                       {"launches_per_call", kn.launches_per_call},
                       {"launch_ms", stats_json(kn.launch_ms)},
                       {"per_call_ms_median", num(kn.per_call_ms_median)},
                       {"total_ms", kn.total_ms},
                       {"streams", streams}});
  }
  nlohmann::json j;
  j["call_time_ms"] = stats_json(r.call);
  j["call_time_ms"]["per_call"] = r.call_ms;
  j["kernel_time"] = {{"available", k.available}, {"note", k.note}, {"source", kKernelTimeSource}};
  const GpuDurationResult& g = r.gpu_duration;
  j["gpu_duration"] = {
      {"available", g.available},
      {"note", g.note},
      {"source", kGpuDurationSource},
      {"clock_mismatch", g.clock_mismatch.empty() ? nlohmann::json(nullptr) : nlohmann::json(g.clock_mismatch)},
      {"cache_control", g.cache_control ? "all" : "none"},
      {"cache_control_asked", g.cache_control_asked},
      {"cupti_version", g.cupti_version ? nlohmann::json(cupti_version_text(g.cupti_version)) : nlohmann::json()}};
  if (g.available) {
    j["gpu_duration"]["sum_ms"] = stats_json(g.sum);
    j["gpu_duration"]["sum_ms"]["per_call"] = g.sum_ms;
    j["gpu_duration"]["kernels_per_call"] = g.median_kernels;
  }
  auto reported = reported_kernel_time(r);
  j["kernel_time_reported"] = reported ? nlohmann::json(reported->label) : nlohmann::json(nullptr);
  if (k.available) {
    j["kernel_time"]["sum_ms"] = stats_json(k.summary.sum);
    j["kernel_time"]["sum_ms"]["per_call"] = k.summary.sum_ms;
    j["kernel_time"]["busy_ms"] = stats_json(k.summary.busy);
    j["kernel_time"]["kernels"] = kernels;
    j["kernel_time"]["calls_without_kernels"] = k.summary.calls_without_kernels;
    j["kernel_time"]["other_streams"] = k.summary.other_streams;
    j["kernel_time"]["default_stream"] = k.default_stream ? nlohmann::json(*k.default_stream) : nlohmann::json();
    j["kernel_time"]["outside_kernels"] = k.outside_kernels;
    j["kernel_time"]["attributed_by_correlation"] = k.by_correlation;
    j["kernel_time"]["attributed_by_time"] = k.by_time;
  }
  j["rules"] = {{"call_unstable", r.call_unstable},
                {"kernel_unstable", r.kernel_unstable},
                {"unstable_cv_threshold", kUnstableCv},
                {"overhead_dominates", r.overhead_dominates},
                {"overhead_kernel_share_threshold", kOverheadKernelShare},
                {"kernels_exceed_call", r.kernels_exceed_call},
                {"exceed_margin", kEscapeMargin}};
  j["findings"] = timing_findings(r);
  j["settings"] = {{"warmup_calls", r.warmup_calls},
                   {"warmup_ms", r.warmup_ms},
                   {"warmup_mode", o.warmup_calls ? "count" : "time"},
                   {"warmup_ms_requested", o.warmup_ms},
                   {"iters", r.iters},
                   {"iters_requested", o.iters},
                   {"budget_ms", o.budget_ms},
                   {"budget_hit", r.budget_hit},
                   {"noise_target", o.noise_target},
                   {"throttle_threshold", o.clock_floor_frac},
                   {"discard_throttled", o.discard_throttled},
                   {"input_sets_requested", o.input_sets},
                   {"l2_flush", r.l2_flush_bytes > 0},
                   {"l2_flush_bytes", r.l2_flush_bytes},
                   {"l2_bytes", r.l2_bytes},
                   {"restored_outputs", r.restored},
                   {"call_timeout_ms", o.call_timeout_ms}};
  const auto& c = r.sm_clock;
  j["sm_clock_mhz"] = {{"before", opt_json(c.before)},
                       {"after", opt_json(c.after)},
                       {"min_seen", opt_json(c.min_seen)},
                       {"max_seen", opt_json(c.max_seen)},
                       {"max", opt_json(c.max_mhz)}};
  j["during_timed_calls"] = during_json(r.during);
  j["sampling"] = sampling_json(r);
  j["integrity"] = integrity_json(r.integrity);
  j["notes"] = r.notes;
  return j;
}

}  // namespace kprof
