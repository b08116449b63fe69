// Occupancy-Bound and Latency-Bound (classify_detail.hpp), split from classify.cpp.
#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "stages/analysis/classify_detail.hpp"
#include "stages/analysis/derived.hpp"
#include "stages/analysis/format.hpp"
#include "stages/analysis/limiter.hpp"
#include "stages/analysis/signals.hpp"
#include "stages/analysis/thresholds.hpp"
#include "stages/ncu/metrics.hpp"

namespace kprof::classify_detail {

namespace m = metric;
namespace t = threshold;

namespace {

/// A tail effect: the grid fills a few waves and the last one is at most half full, so the
/// achieved occupancy averages in a partly idle last wave ("" when not: no waves, many waves, or
/// a full last wave). ncu's "Tail Effect" note in Launch Statistics.
std::string tail_effect(const KernelMetrics& k) {
  auto waves = waves_per_sm(k);
  if (!waves || *waves < t::kMinWavesForOccupancy || *waves > t::kMaxWavesForTail) return "";
  double last = *waves - std::floor(*waves);
  if (last <= 0 || last > 0.5) return "";
  return fmt::format("tail effect: {} waves per SM, the last one {} full", fmt_sig(*waves, 3), pct(100 * last));
}

/// Latency hiding failed: fewer than one eligible warp per scheduler and issue slots under half
/// busy (the seed's issue-slot threshold). Occupancy can only bind then.
struct LatencyHiding {
  std::optional<double> eligible, issue;
  bool failed() const { return eligible && issue && *eligible < t::kFewEligibleWarps && *issue < t::kLowIssueSlotPct; }
};

}  // namespace

/// Occupancy rows; returns true when Occupancy-Bound holds (sets class, limiter, summary).
bool check_occupancy(Verdict& v, const KernelMetrics& k) {
  auto achieved = catalog_value(k, m::kAchievedOcc);
  auto theoretical = catalog_value(k, m::kTheoreticalOcc);
  std::string waves_how;
  auto waves = waves_per_sm(k, &waves_how);
  auto limiter = occupancy_limiter(k);
  std::vector<std::string> missing;
  if (!achieved) missing.emplace_back(m::kAchievedOcc);
  if (!theoretical) missing.emplace_back(m::kTheoreticalOcc);
  if (!waves) missing.emplace_back(m::kWaves);
  if (!limiter) missing.emplace_back(std::string(m::kLimitPrefix) + "{registers,shared_mem,warps}");

  bool fills = waves && *waves >= t::kMinWavesForOccupancy;
  bool low_theoretical = theoretical && *theoretical < t::kLowTheoreticalOccupancyPct;
  bool far_below = achieved && theoretical && *achieved < t::kAchievedFractionOfTheoretical * *theoretical;
  if (theoretical)
    v.evidence.push_back({fmt::format("Theoretical occupancy < {}%", num(t::kLowTheoreticalOccupancyPct)),
                          m::kTheoreticalOcc, pct(*theoretical),
                          fmt::format("< {}% (kprof)", num(t::kLowTheoreticalOccupancyPct)), low_theoretical});
  if (theoretical) set_number(v, *theoretical, "%");
  if (achieved && theoretical)
    v.evidence.push_back({"Achieved occupancy far below theoretical",
                          std::string(m::kAchievedOcc) + " / " + m::kTheoreticalOcc,
                          fmt::format("{} of {} ({} of theoretical)", pct(*achieved), pct(*theoretical),
                                      *theoretical > 0 ? pct(100.0 * *achieved / *theoretical) : "n/a"),
                          fmt::format("< {}% of theoretical (kernel-profile scripts: \"far below\")",
                                      num(100 * t::kAchievedFractionOfTheoretical)),
                          far_below});
  if (achieved && theoretical && *theoretical > 0) set_number(v, 100.0 * *achieved / *theoretical, "% of theoretical");
  if (waves)
    v.evidence.push_back(
        {"Grid fills at least one wave", waves_how, fmt_sig(*waves, 3) + " waves per SM",
         fmt::format(">= {} (occupancy can only bind when the SMs are full)", num(t::kMinWavesForOccupancy)), fills});
  if (waves) set_number(v, *waves, "waves per SM");
  if (limiter)
    v.evidence.push_back({"Occupancy limiter", m::kLimitFamily, limiter->text(), "smallest block limit", true});
  if (!missing.empty()) {
    std::string list;
    for (const auto& s : missing) list += (list.empty() ? "" : ", ") + s;
    v.not_concluded.push_back("Occupancy-Bound could not be checked fully: needs " + list);
  }
  LatencyHiding hiding{catalog_value(k, m::kEligibleWarps), catalog_value(k, m::kIssueActive)};
  if (hiding.eligible && hiding.issue)
    v.evidence.push_back({"Latency hiding failed", std::string(m::kEligibleWarps) + ", " + m::kIssueActive,
                          fmt::format("{} eligible warps per scheduler, issue slots {} busy",
                                      fmt_sig(*hiding.eligible, 3), pct(*hiding.issue)),
                          fmt::format("< {} eligible and < {}% issue (kprof: more warps help only then)",
                                      num(t::kFewEligibleWarps), num(t::kLowIssueSlotPct)),
                          hiding.failed()});
  else
    v.not_concluded.push_back(std::string("whether latency hiding failed (Occupancy-Bound): needs ") +
                              m::kEligibleWarps + ", " + m::kIssueActive);
  std::string tail = far_below && !low_theoretical ? tail_effect(k) : "";
  if (!tail.empty())
    v.evidence.push_back({"Tail effect, not an occupancy limit", waves_how, tail,
                          "the last wave at most half full (ncu's Launch Statistics tail effect)", true});
  if (!(fills && limiter && (low_theoretical || far_below) && hiding.failed() && tail.empty())) return false;
  v.cls = Bottleneck::OccupancyBound;
  v.limiter = limiter->text();
  v.summary = low_theoretical ? fmt::format("Occupancy-Bound: theoretical occupancy {} < {}%, limited by {}",
                                            pct(*theoretical), num(t::kLowTheoreticalOccupancyPct), limiter->text())
                              : fmt::format(
                                    "Occupancy-Bound: achieved occupancy {} is below {}% of theoretical {} "
                                    "(uneven warps or a partial last wave; block limit: {})",
                                    pct(*achieved), num(100 * t::kAchievedFractionOfTheoretical), pct(*theoretical),
                                    limiter->text());
  add_section(v, "Occupancy");
  add_section(v, "Launch Statistics");
  return true;
}

void classify_latency(Verdict& v, const KernelMetrics& k, const SolReading& s) {
  v.cls = Bottleneck::LatencyBound;
  std::string waves_how;
  auto waves = waves_per_sm(k, &waves_how);
  auto eligible = catalog_value(k, m::kEligibleWarps);
  auto stalls = ranked_stalls(k);
  std::string cause;
  if (waves) {
    bool few = *waves < t::kFewWaves;
    v.evidence.push_back({"Waves per SM < 1 (too few blocks)", waves_how, fmt_sig(*waves, 3),
                          fmt::format("< {}", num(t::kFewWaves)), few});
    set_number(v, *waves, "waves per SM");
    if (few)
      cause = fmt::format("too few blocks, {} waves per SM from a grid of {}", fmt_sig(*waves, 2),
                          format_optional(catalog_value(k, m::kGridSize), ""));
  }
  if (eligible) {
    bool few = *eligible < t::kFewEligibleWarps;
    v.evidence.push_back({"Eligible warps per cycle < 1", m::kEligibleWarps, fmt_sig(*eligible, 3) + " per scheduler",
                          fmt::format("< {} (kprof)", num(t::kFewEligibleWarps)), few});
    set_number(v, *eligible, "warps per scheduler");
    std::string tail = tail_effect(k);
    if (!tail.empty() && cause.empty() && catalog_value(k, m::kAchievedOcc) && catalog_value(k, m::kTheoreticalOcc) &&
        *catalog_value(k, m::kAchievedOcc) < t::kAchievedFractionOfTheoretical * *catalog_value(k, m::kTheoreticalOcc))
      cause = tail;  // the idle last wave explains the low achieved occupancy
    if (few && cause.empty())
      cause = fmt::format("few eligible warps: {} per scheduler per cycle", fmt_sig(*eligible, 2));
  }
  if (!stalls.empty()) {
    std::string top;
    for (size_t i = 0; i < stalls.size() && i < static_cast<size_t>(t::kTopStalls); ++i)
      top += fmt::format("{}{} {}", top.empty() ? "" : ", ", stalls[i].reason, pct(stalls[i].share_pct));
    v.evidence.push_back({"Leading stall reasons", std::string(stalls.front().metric) + " / " + m::kWarpLatency, top,
                          "top 2 by share of warp cycles per issued instruction", true});
    if (cause.empty()) cause = "stalls: " + top;
  }
  if (!waves || !eligible || stalls.empty())
    v.not_concluded.push_back(
        fmt::format("the full latency cause: needs {}{}{}", waves ? "" : std::string(m::kWaves) + " ",
                    eligible ? "" : std::string(m::kEligibleWarps) + " ", stalls.empty() ? m::kStallFamily : ""));
  v.limiter = cause.empty() ? "cause not collected" : cause;
  v.summary = fmt::format("Latency-Bound: SM SOL {} and memory SOL {} both < {}%; likely cause: {}", pct(*s.sm),
                          pct(*s.mem), num(t::kLatencySolPct), v.limiter);
  if (waves && *waves < t::kFewWaves) add_section(v, "Launch Statistics");
  add_section(v, "Scheduler Statistics");
  add_section(v, "Warp State Statistics");
}

}  // namespace kprof::classify_detail
