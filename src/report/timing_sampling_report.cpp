// The timing report's sampling, clock and integrity parts (report/timing_report.hpp): how many
// calls the noise target took, which calls the clock floor or a throttle discarded, the input
// rotation and the memoization check.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "core/text.hpp"
#include "report/timing_report.hpp"
#include "stages/env/nvml.hpp"

namespace kprof {
namespace {

std::string pct2(double fraction) { return std::isnan(fraction) ? "n/a" : fmt::format("{:.2f}%", 100.0 * fraction); }

nlohmann::json num(double v) { return std::isnan(v) ? nlohmann::json() : nlohmann::json(v); }

nlohmann::json opt_json(const std::optional<unsigned>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

nlohmann::json discard_json(const DiscardSummary& d) {
  return {{"discarded", d.total},
          {"below_floor", d.below_floor},
          {"throttled_discarded", d.throttled},
          {"throttled_seen", d.throttled_seen},
          {"kept_all", d.kept_all},
          {"sm_clock_mhz_median", opt_json(d.median_sm_mhz)},
          {"sm_clock_mhz_min", opt_json(d.min_sm_mhz)},
          {"sm_clock_mhz_max", opt_json(d.max_sm_mhz)}};
}

std::string discard_phrase(const DiscardSummary& d, size_t calls, const std::optional<unsigned>& floor) {
  if (d.total == 0) return "none discarded";
  std::vector<std::string> why;
  if (d.below_floor) why.push_back(fmt::format("{} below the {} MHz floor", d.below_floor, floor.value_or(0)));
  if (d.throttled) why.push_back(fmt::format("{} under a power or thermal throttle", d.throttled));
  if (d.kept_all)
    return fmt::format("{} of {} would be discarded ({}), which leaves too few: all kept", d.total, calls,
                       fmt::join(why, ", "));
  return fmt::format("{} of {} discarded ({})", d.total, calls, fmt::join(why, ", "));
}

}  // namespace

std::string sampling_text(const TimingResult& r) {
  const TimingOptions& o = r.options;
  std::string how = o.iters > 0
                        ? fmt::format("--iters {}", o.iters)
                        : fmt::format("until the relative standard error of the median reached {} (--noise-target)",
                                      pct2(o.noise_target));
  return fmt::format(
      "Timed calls: {} in the first pass ({}; stopped by the {}; at least {} kept, time limit {}), as many in the "
      "second; relative standard error of the median: call time {}, kernel time {}. Calls: {}.",
      r.iters, how, r.stopped_by.empty() ? "count" : r.stopped_by, min_timed_calls(o), fmt_duration_ms(o.budget_ms),
      pct2(r.call_rel_stderr), pct2(r.kernel_rel_stderr),
      discard_phrase(r.call_discard, r.call_conditions.size(), r.clock_floor_mhz));
}

std::string rotation_text(const TimingResult& r) {
  std::string s =
      r.rotation.sets >= 2
          ? fmt::format(
                "Inputs: rotated over {} input sets (seeds {}; every buffer restored from its set before each "
                "call)",
                r.rotation.sets, fmt::join(r.rotation.seeds, ", "))
          : "Inputs: one input set" + (r.rotation.note.empty() ? std::string() : " (" + r.rotation.note + ")");
  if (r.memo.ran)
    s += fmt::format("; {} calls on identical inputs: median {} against {} rotated", r.memo.identical_calls,
                     fmt_duration_ms(r.memo.identical_median_ms), fmt_duration_ms(r.memo.rotated_median_ms));
  return s + ".";
}

std::string clocks_text(const TimingResult& r) {
  auto mhz = [](const std::optional<unsigned>& v) { return v ? fmt::format("{} MHz", *v) : std::string("n/a"); };
  const auto& c = r.call_discard;
  const GpuDurationResult& g = r.gpu_duration;
  return fmt::format(
      "SM clock of the timed calls (NVML, the lowest reading inside each call's window and right after it): median "
      "{}, {} to {}; floor {} ({:.0f}% of the maximum {}, nvbench's throttle threshold; --throttle-threshold); "
      "kernel-time pass: median {}, {}{}.",
      mhz(c.median_sm_mhz), mhz(c.min_sm_mhz), mhz(c.max_sm_mhz), mhz(r.clock_floor_mhz),
      100 * r.options.clock_floor_frac, mhz(r.sm_clock.max_mhz), mhz(r.kernel_discard.median_sm_mhz),
      discard_phrase(r.kernel_discard, r.kernel_conditions.size(), r.clock_floor_mhz),
      g.calls ? fmt::format("; GPU-duration pass: median {}, {}", mhz(g.discard.median_sm_mhz),
                            discard_phrase(g.discard, g.conditions.size(), r.clock_floor_mhz))
              : std::string());
}

std::vector<std::string> sampling_findings(const TimingResult& r) {
  std::vector<std::string> out;
  const TimingOptions& o = r.options;
  if (r.stopped_by == "time limit" && o.iters == 0)
    out.push_back(fmt::format(
        "The time limit ({}) stopped timing after {} calls at a relative standard error of {} (target {}): raise "
        "--time-budget-ms, or lock the clocks (`kprof clocks --lock`) to lower the noise.",
        fmt_duration_ms(o.budget_ms), r.iters, pct2(r.call_rel_stderr), pct2(o.noise_target)));
  const auto& d = r.call_discard;
  const size_t n = r.call_conditions.size();
  if (d.throttled_seen)
    out.push_back(fmt::format(
        "Power or thermal throttling during {} of {} timed calls (clock event reasons: {}): {}. The times {} "
        "throttled calls{}.",
        d.throttled_seen, n, reason_text(r.during), discard_phrase(d, n, r.clock_floor_mhz),
        o.discard_throttled && !d.kept_all ? "exclude" : "include",
        o.discard_throttled
            ? ""
            : " (--discard-throttled drops them; a kernel that throttles itself is slower in use too)"));
  else if (d.below_floor)
    out.push_back(fmt::format("{} of {} timed calls ran below the SM clock floor of {} MHz: {}.", d.below_floor, n,
                              r.clock_floor_mhz.value_or(0), discard_phrase(d, n, r.clock_floor_mhz)));
  if (r.memo.suspected)
    out.push_back(fmt::format(
        "Identical inputs ran {:.2f}x faster than rotated ones ({} against {}): the kernel seems to memoize its "
        "output on its inputs; its time on new inputs is the rotated one.",
        r.memo.verdict ? r.memo.verdict->interval.ratio : 0.0, fmt_duration_ms(r.memo.identical_median_ms),
        fmt_duration_ms(r.memo.rotated_median_ms)));
  return out;
}

nlohmann::json sampling_json(const TimingResult& r) {
  nlohmann::json memo = {
      {"ran", r.memo.ran},
      {"identical_calls", r.memo.identical_calls},
      {"identical_median_ms", r.memo.ran ? nlohmann::json(r.memo.identical_median_ms) : nlohmann::json()},
      {"rotated_median_ms", r.memo.ran ? nlohmann::json(r.memo.rotated_median_ms) : nlohmann::json()},
      {"ratio", r.memo.verdict ? nlohmann::json(r.memo.verdict->interval.ratio) : nlohmann::json()},
      {"suspected", r.memo.suspected},
      {"gap_threshold", kMemoGap},
      {"note", r.memo.note}};
  return {{"calls", r.iters},
          {"stopped_by", r.stopped_by},
          {"call_rel_stderr", num(r.call_rel_stderr)},
          {"kernel_rel_stderr", num(r.kernel_rel_stderr)},
          {"noise_target", r.options.noise_target},
          {"clock_floor_mhz", opt_json(r.clock_floor_mhz)},
          {"call_pass", discard_json(r.call_discard)},
          {"kernel_pass", discard_json(r.kernel_discard)},
          {"duration_pass", discard_json(r.gpu_duration.discard)},
          {"discarded_call_ms", r.call_ms_discarded},
          {"input_sets", r.rotation.sets},
          {"input_seeds", r.rotation.seeds},
          {"memoization", memo}};
}

std::string integrity_markdown(const Integrity& i) {
  std::string md = fmt::format("### Integrity: {}\n\n", integrity_status_id(i.verdict));
  for (const auto& c : i.checks) md += fmt::format("- {} ({}): {}.\n", c.name, integrity_status_id(c.status), c.detail);
  return md;
}

nlohmann::json integrity_json(const Integrity& i) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : i.checks)
    checks.push_back({{"name", c.name}, {"status", integrity_status_id(c.status)}, {"detail", c.detail}});
  return {{"verdict", integrity_status_id(i.verdict)}, {"checks", checks}};
}

}  // namespace kprof
