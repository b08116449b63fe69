#include "report/decision_report.hpp"

#include <fmt/format.h>

#include <cmath>

namespace kprof {
namespace {

nlohmann::json opt_num(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

/// Rounds (kept / made) and their discards in words.
std::string rounds_text(const DecisionReport& d) {
  std::string s = fmt::format(
      "{} of {} rounds used ({} discarded: {} off the SM clock band, {} off the run's "
      "throttle state, {} with a zero-time call), stopped by {}, {:.1f} s",
      d.rounds_kept, d.rounds, d.rounds_discarded, d.band.discarded_clock, d.band.discarded_throttle,
      d.band.discarded_zero, d.stopped_by.empty() ? "n/a" : d.stopped_by, d.seconds);
  if (d.band.ref_mhz) s += fmt::format("; band {}-{} MHz around {} MHz", d.band.lo_mhz, d.band.hi_mhz, *d.band.ref_mhz);
  if (d.zero_time_calls > 0) s += fmt::format("; {} calls with zero time", d.zero_time_calls);
  if (d.confirmation)
    s += fmt::format("; --confirm: the first set alone at {:.2f}% error, both sets pooled at {:.2f}%",
                     100 * (1 - d.settings.confidence) * kFirstLookShare,
                     100 * (1 - d.settings.confidence) * (1 - kFirstLookShare));
  if (d.candidates > 1)
    s += fmt::format("; Holm's step-down over {} candidates (at most {:.0f}% false keep or revert in all)",
                     d.candidates, 100 * (1 - d.settings.confidence));
  if (d.rounds_kept > 0 && d.rounds_kept < 20)
    s += fmt::format(
        "; only {} rounds: the interval is near the range of the rounds, and small gains stay inconclusive "
        "(docs/decisions-sim.md: at 10 rounds a true +3% at 1% noise is kept in about 4 runs of 10)",
        d.rounds_kept);
  s += fmt::format("; order seed {}", d.seed);
  return s;
}

}  // namespace

nlohmann::json candidate_decision_json(const CandidateDecision& d) {
  nlohmann::json interval = nullptr;
  if (d.lo && d.hi) interval = {*d.lo, *d.hi};
  return {{"decision", decision_id(d.decision)},
          {"reason", d.reason},
          {"ratio", opt_num(d.ratio)},
          {"interval", interval},
          {"confidence", d.confidence},
          {"threshold_pct", 100 * d.threshold},
          {"floor_pct", 100 * d.floor},
          {"min_gain_pct", 100 * d.min_gain},
          {"rounds", d.rounds},
          {"more_rounds", d.more_rounds ? nlohmann::json(*d.more_rounds) : nlohmann::json(nullptr)},
          {"within_threshold", d.within_threshold},
          {"confirmed", d.confirmed},
          {"zero_rounds", d.zero_rounds},
          {"paired", d.paired}};
}

nlohmann::json decision_json(const DecisionReport& d) {
  nlohmann::json aa = nullptr;
  if (d.floor.aa) aa = {std::exp(d.floor.aa->lo), std::exp(d.floor.aa->hi)};
  nlohmann::json versions = nlohmann::json::array();
  for (const auto& v : d.versions) {
    nlohmann::json e = {{"name", v.name}};
    e.update(candidate_decision_json(v.decision));
    versions.push_back(e);
  }
  nlohmann::json band = {{"sm_mhz", d.band.ref_mhz ? nlohmann::json(*d.band.ref_mhz) : nlohmann::json(nullptr)},
                         {"lo_mhz", d.band.lo_mhz},
                         {"hi_mhz", d.band.hi_mhz},
                         {"throttled", d.band.throttled},
                         {"note", d.band.note}};
  // The block's own version: 2 since issue 49 (threshold_pct is --min-gain alone, Holm, the A/A check).
  return {{"schema_version", 2},
          {"rule", d.rule},
          {"baseline", d.baseline},
          {"basis", d.basis},
          {"confidence", d.settings.confidence},
          {"min_gain_pct", 100 * d.settings.min_gain},
          {"aa_floor_pct", d.floor.aa ? nlohmann::json(100 * d.floor.floor) : nlohmann::json(nullptr)},
          {"aa_interval", aa},
          {"aa_biased", d.floor.biased},
          {"aa_check", d.floor.aa ? (d.aa_failed ? "failed" : "passed") : "not_run"},
          {"threshold_pct", 100 * d.settings.min_gain},
          {"candidates", d.candidates},
          {"correction", "holm"},
          {"order_seed", d.seed},
          {"zero_time_calls", d.zero_time_calls},
          {"discarded_zero", d.band.discarded_zero},
          {"calls_per_round", d.calls_per_round},
          {"rounds", d.rounds},
          {"rounds_used", d.rounds_kept},
          {"rounds_discarded", d.rounds_discarded},
          {"discarded_clock", d.band.discarded_clock},
          {"discarded_throttle", d.band.discarded_throttle},
          {"band", band},
          {"stopped_by", d.stopped_by},
          {"seconds", d.seconds},
          {"confirmation", d.confirmation},
          {"not_run", d.not_run.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.not_run)},
          {"notes", d.notes},
          {"versions", versions}};
}

std::string decision_markdown(const DecisionReport& d) {
  std::string md = "\n## Decision (keep or revert, against " + d.baseline + ")\n\n";
  if (!d.not_run.empty()) return md + "No decision: " + d.not_run + "\n";
  md += "Rule: " + d.rule + "\n\n";
  md += fmt::format("Threshold {:.2f}% (--min-gain); A/A check {} (spread {}); {}.\n\n", 100 * d.settings.min_gain,
                    !d.floor.aa   ? "not run"
                    : d.aa_failed ? "FAILED: no decision"
                                  : "passed",
                    d.floor.aa ? fmt::format("{:.2f}%", 100 * d.floor.floor) : std::string("n/a"), rounds_text(d));
  for (const auto& v : d.versions) {
    const std::string id = decision_id(v.decision.decision);
    md += "- " + v.name + ": **" + id + "**" + decision_text(v.decision).substr(id.size()) + "\n";
  }
  for (const auto& n : d.notes) md += "\nNote: " + n + "\n";
  return md;
}

std::string decision_text_lines(const DecisionReport& d) {
  if (!d.not_run.empty()) return "decision: none: " + d.not_run + "\n";
  std::string s = "decision: " + rounds_text(d) + "\n";
  for (const auto& v : d.versions) s += "decision " + v.name + ": " + decision_text(v.decision) + "\n";
  for (const auto& n : d.notes) s += "decision note: " + n + "\n";  // what "(see the note)" points to
  return s;
}

}  // namespace kprof
