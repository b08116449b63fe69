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
      "throttle state), stopped by {}, {:.1f} s",
      d.rounds_kept, d.rounds, d.rounds_discarded, d.band.discarded_clock, d.band.discarded_throttle,
      d.stopped_by.empty() ? "n/a" : d.stopped_by, d.seconds);
  if (d.band.ref_mhz) s += fmt::format("; band {}-{} MHz around {} MHz", d.band.lo_mhz, d.band.hi_mhz, *d.band.ref_mhz);
  if (d.confirmation) s += "; confirmed by a second, independent set of rounds";
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
  return {{"rule", d.rule},
          {"baseline", d.baseline},
          {"basis", d.basis},
          {"confidence", d.settings.confidence},
          {"min_gain_pct", 100 * d.settings.min_gain},
          {"aa_floor_pct", d.floor.aa ? nlohmann::json(100 * d.floor.floor) : nlohmann::json(nullptr)},
          {"aa_interval", aa},
          {"aa_biased", d.floor.biased},
          {"threshold_pct", 100 * std::max(d.floor.floor, d.settings.min_gain)},
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
  md += fmt::format("Threshold {:.2f}% = max(A/A floor {}, --min-gain {:.2f}%); {}.\n\n",
                    100 * std::max(d.floor.floor, d.settings.min_gain),
                    d.floor.aa ? fmt::format("{:.2f}%", 100 * d.floor.floor) : std::string("n/a"),
                    100 * d.settings.min_gain, rounds_text(d));
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
  return s;
}

}  // namespace kprof
