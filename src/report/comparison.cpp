#include "report/comparison.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/text.hpp"

namespace kprof {
namespace {

std::string opt_pct(const std::optional<double>& v) { return v ? fmt::format("{:.1f}%", *v) : "n/a"; }
std::string opt_ms(const std::optional<double>& v) { return v ? fmt_duration_ms(*v) : "n/a"; }

/// "80.3% (at most 1.25x faster)", or "n/a".
std::string bound_cell(const VersionRow& r) {
  if (!r.pct_of_bound) return "n/a";
  return fmt::format("{:.1f}% (at most {:.2f}x faster)", *r.pct_of_bound, r.max_speedup.value_or(1.0));
}

nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

std::optional<double> opt_num(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

/// A saved time (ms): absent or null is none; a value that is not a number (a string where a time
/// belongs) throws nlohmann's type_error, which the reader of the file reports as damaged (exit 2):
/// a gate never passes on a time it could not read.
std::optional<double> opt_time(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return it->get<double>();
}

std::string str_or(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<double> samples(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? it->get<std::vector<double>>() : std::vector<double>();
}

std::optional<Bottleneck> parse_bottleneck(const std::string& name) {
  for (auto b : {Bottleneck::MemoryBound, Bottleneck::ComputeBound, Bottleneck::OccupancyBound,
                 Bottleneck::LatencyBound, Bottleneck::Mixed, Bottleneck::NotClassified})
    if (bottleneck_name(b) == name) return b;
  return std::nullopt;
}

}  // namespace

std::string correctness_text(const VersionRow& r) {
  switch (r.status) {
    case VersionStatus::Pass:
      return "PASS";
    case VersionStatus::Fail:
      return "FAIL: " + r.status_reason;
    case VersionStatus::LoadError:
      return "ERROR (load): " + r.status_reason;
    case VersionStatus::CheckError:
      return "ERROR (check): " + r.status_reason;
    case VersionStatus::NotRun:
      return "not run: " + r.status_reason;
    case VersionStatus::Unchecked:
      return "not checked";
  }
  return "not checked";
}

std::string correctness_word(const VersionRow& r) {
  switch (r.status) {
    case VersionStatus::Pass:
      return "PASS";
    case VersionStatus::Fail:
      return "FAIL";
    case VersionStatus::LoadError:
    case VersionStatus::CheckError:
      return "ERROR";
    case VersionStatus::NotRun:
      return "not run";
    case VersionStatus::Unchecked:
      return "not checked";
  }
  return "not checked";
}

std::string class_text(const VersionRow& r) {
  switch (r.profile) {
    case ProfileStatus::Classified:
      return bottleneck_name(r.cls);
    case ProfileStatus::NotClassified:
      return "not classified: " + r.profile_reason;
    case ProfileStatus::NotProfiled:
      break;
  }
  switch (r.status) {
    case VersionStatus::Fail:
      return "not profiled (correctness failed)";
    case VersionStatus::LoadError:
      return "not profiled (load failed)";
    case VersionStatus::CheckError:
      return "not profiled (check failed)";
    default:
      return "not profiled";
  }
}

std::string leading_stall_text(const VersionRow& r) {
  if (r.leading_stall.empty()) return "";
  return r.leading_stall_pct ? fmt::format("{} ({:.0f}%)", r.leading_stall, *r.leading_stall_pct) : r.leading_stall;
}

std::string top_finding_text(const VersionRow& r) {
  if (r.top_finding.empty()) return "";
  return r.top_finding_gain_pct ? fmt::format("{} ({:.1f}%)", r.top_finding, *r.top_finding_gain_pct) : r.top_finding;
}

void to_json(nlohmann::json& j, const VersionRow& r) {
  j = {{"name", r.name},
       {"kernel", r.kernel},
       {"folder", r.folder},
       {"status", version_status_id(r.status)},
       {"status_reason", r.status_reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.status_reason)},
       {"correct", r.correct()},
       {"profiled", r.profiled},
       {"time_ms", opt(r.time_ms)},
       {"spread_ms", opt(r.spread_ms)},
       {"time_samples_ms", r.time_samples_ms},
       {"call_ms", opt(r.call_ms)},
       {"call_std_ms", opt(r.call_std_ms)},
       {"call_samples_ms", r.call_samples_ms},
       {"kernel_ms", opt(r.kernel_ms)},
       {"kernel_std_ms", opt(r.kernel_std_ms)},
       {"kernel_samples_ms", r.kernel_samples_ms},
       {"kernel_source", r.kernel_source.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.kernel_source)},
       {"rel_stderr", opt(r.rel_stderr)},
       {"sm_clock_mhz", opt(r.sm_clock_mhz)},
       {"throttled_calls", r.throttled_calls},
       {"integrity", r.integrity.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.integrity)},
       {"integrity_issues", r.integrity_issues},
       {"profile_status", profile_status_id(r.profile)},
       {"class",
        r.profile == ProfileStatus::Classified ? nlohmann::json(bottleneck_name(r.cls)) : nlohmann::json(nullptr)},
       {"profile_reason", r.profile_reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.profile_reason)},
       {"sm_sol_pct", opt(r.sm_sol)},
       {"memory_sol_pct", opt(r.mem_sol)},
       {"achieved_occupancy_pct", opt(r.achieved_occupancy)},
       {"dram_bytes", opt(r.dram_bytes)},
       {"leading_stall", r.leading_stall.empty()
                             ? nlohmann::json(nullptr)
                             : nlohmann::json{{"reason", r.leading_stall}, {"pct", opt(r.leading_stall_pct)}}},
       {"pct_of_bound", opt(r.pct_of_bound)},
       {"bound_ms", opt(r.bound_ms)},
       {"max_speedup", opt(r.max_speedup)},
       {"bound_basis", r.bound_basis},
       {"top_finding", r.top_finding.empty()
                           ? nlohmann::json(nullptr)
                           : nlohmann::json{{"title", r.top_finding}, {"gain_pct", opt(r.top_finding_gain_pct)}}},
       {"note", r.note.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.note)},
       {"build", r.build.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.build)},
       {"steps_s", r.steps_s},
       {"fault", r.fault ? nlohmann::json(fault_kind_id(*r.fault)) : nlohmann::json(nullptr)}};
}

void from_json(const nlohmann::json& j, VersionRow& r) {
  r.name = str_or(j, "name");
  r.kernel = str_or(j, "kernel");
  r.folder = str_or(j, "folder");
  auto st = parse_version_status(str_or(j, "status"));
  if (!st)
    throw usage_error("unknown version status \"" + str_or(j, "status") + "\" in version " + r.name,
                      "the file is not a kprof schema_version 2 result");
  r.status = *st;
  r.status_reason = str_or(j, "status_reason");
  r.profiled = j.value("profiled", false);
  r.time_ms = opt_time(j, "time_ms");
  r.spread_ms = opt_time(j, "spread_ms");
  r.time_samples_ms = samples(j, "time_samples_ms");
  r.call_ms = opt_time(j, "call_ms");
  r.call_std_ms = opt_time(j, "call_std_ms");
  r.call_samples_ms = samples(j, "call_samples_ms");
  r.kernel_ms = opt_time(j, "kernel_ms");
  r.kernel_std_ms = opt_time(j, "kernel_std_ms");
  r.kernel_samples_ms = samples(j, "kernel_samples_ms");
  r.kernel_source = str_or(j, "kernel_source");
  r.profile = parse_profile_status(str_or(j, "profile_status")).value_or(ProfileStatus::NotProfiled);
  r.cls = parse_bottleneck(str_or(j, "class")).value_or(Bottleneck::NotClassified);
  r.profile_reason = str_or(j, "profile_reason");
  r.sm_sol = opt_num(j, "sm_sol_pct");
  r.mem_sol = opt_num(j, "memory_sol_pct");
  r.achieved_occupancy = opt_num(j, "achieved_occupancy_pct");
  r.dram_bytes = opt_num(j, "dram_bytes");
  if (auto it = j.find("leading_stall"); it != j.end() && it->is_object()) {
    r.leading_stall = str_or(*it, "reason");
    r.leading_stall_pct = opt_num(*it, "pct");
  }
  r.pct_of_bound = opt_num(j, "pct_of_bound");
  r.bound_ms = opt_num(j, "bound_ms");
  r.max_speedup = opt_num(j, "max_speedup");
  r.bound_basis = str_or(j, "bound_basis");
  if (auto it = j.find("top_finding"); it != j.end() && it->is_object()) {
    r.top_finding = str_or(*it, "title");
    r.top_finding_gain_pct = opt_num(*it, "gain_pct");
  }
  r.note = str_or(j, "note");
  r.build = str_or(j, "build");
  if (auto it = j.find("steps_s"); it != j.end() && it->is_object())
    for (const auto& [k, v] : it->items())
      if (v.is_number()) r.steps_s[k] = v.get<double>();
  r.fault = parse_fault_kind(str_or(j, "fault"));
}

/// {"call", "method", "ratio", "ci_low", "ci_high", "confidence", "resamples", "min_effect", "equivalence",
/// "more_samples"} of a verdict, or null. "method" (added with issue 49 item 1): "rounds" for kprof
/// run's verdicts from interleaved rounds (ratio: the median of the per-round paired ratios; ci: the
/// order-statistic interval; resamples 0; margins --min-gain; more_samples: more rounds), "bootstrap"
/// for the ratio of two samples' medians with its bootstrap interval.
nlohmann::json verdict_json(const std::optional<NoiseVerdict>& v) {
  if (!v) return nullptr;
  return {{"call", noise_call_id(v->call)},
          {"method", v->interval.resamples == 0 ? "rounds" : "bootstrap"},
          {"ratio", v->interval.ratio},
          {"ci_low", v->interval.lo},
          {"ci_high", v->interval.hi},
          {"confidence", v->interval.confidence},
          {"resamples", v->interval.resamples},
          {"min_effect", v->margins.min_effect},
          {"equivalence", v->margins.equivalence},
          {"more_samples", opt(v->more_samples)}};
}

void to_json(nlohmann::json& j, const RowComparison& c) {
  j = {{"speedup_vs_first", opt(c.speedup)},
       {"vs_first", change_id(c.change)},
       {"noise_ms", opt(c.noise_ms)},
       {"verdict_vs_first", verdict_json(c.verdict)},
       {"verdict_vs_fastest", verdict_json(c.verdict_vs_fastest)},
       {"fastest", c.fastest},
       {"tied_with_fastest", c.tied_with_fastest}};
}

std::string change_cell(const RowComparison& c) {
  // A verdict of interleaved rounds (kprof run, apply_round_verdicts) has no bootstrap resamples.
  const bool rounds = c.verdict && c.verdict->interval.resamples == 0;
  if (c.change == Change::Inconclusive && c.verdict)
    return c.verdict->more_samples
               ? fmt::format("inconclusive (about {} more {})", *c.verdict->more_samples, rounds ? "rounds" : "samples")
               : "inconclusive (at the margin)";
  if (c.change == Change::Inconclusive && !c.verdict) return "inconclusive (not timed in the rounds)";
  return change_name(c.change);
}

std::string versions_table_markdown(const std::vector<VersionRow>& rows, const std::vector<RowComparison>& cmp) {
  std::vector<std::vector<std::string>> t;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const auto& c = cmp[i];
    std::string label = r.name;
    if (c.fastest)
      label = "**" + r.name + "** (fastest)";
    else if (c.tied_with_fastest)
      label = "**" + r.name + "** (as fast, within noise)";
    std::string stall = leading_stall_text(r), finding = top_finding_text(r);
    t.push_back({label, correctness_text(r),
                 r.time_ms ? fmt::format("{} ± {}", fmt_duration_ms(*r.time_ms), opt_ms(r.spread_ms)) : "n/a",
                 c.speedup ? fmt::format("{:.2f}x", *c.speedup) : "n/a", change_cell(c), class_text(r),
                 opt_pct(r.sm_sol), opt_pct(r.mem_sol), opt_pct(r.achieved_occupancy), stall.empty() ? "n/a" : stall,
                 bound_cell(r), finding.empty() ? "none" : finding, opt_ms(r.call_ms), opt_ms(r.kernel_ms)});
  }
  return markdown_table({"Version", "Correctness", "Median time ± std", "Speedup vs first", "vs first", "Class",
                         "SM SOL", "Memory SOL", "Achieved occupancy", "Leading stall", "% of bound",
                         "Top finding (est. gain)", "Call time (events)", "Kernel time"},
                        t);
}

std::string comparison_markdown(const std::vector<VersionRow>& rows, const std::vector<RowComparison>& cmp,
                                const std::vector<std::pair<std::string, std::string>>& header,
                                const std::string& basis) {
  std::string md = "# Comparison of kernel versions\n\n";
  std::vector<std::vector<std::string>> h;
  for (const auto& [k, v] : header) h.push_back({k, v});
  h.push_back({"Time compared", basis});
  md += markdown_table({"Item", "Value"}, h);
  md += "\n" + versions_table_markdown(rows, cmp);
  std::string fastest_name;
  std::vector<std::string> tied;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (cmp[i].fastest) fastest_name = rows[i].name;
    if (cmp[i].tied_with_fastest) tied.push_back(rows[i].name);
  }
  std::string notes;
  for (const auto& r : rows)
    if (!r.note.empty()) notes += "- " + r.name + ": " + r.note + "\n";
  if (!notes.empty()) md += "\nNotes:\n\n" + notes;
  if (!fastest_name.empty()) {
    md += "\nFastest correct version: " + fastest_name;
    if (!tied.empty())
      md += fmt::format("; {} {} within noise of it, so the measurement cannot rank {} against it",
                        fmt::join(tied, ", "), tied.size() == 1 ? "is" : "are", tied.size() == 1 ? "it" : "them");
    md += ".\n";
  }
  md +=
      "\n\"vs first\": from the interleaved rounds that follow the versions' own timings (the decision below: "
      "per-round paired ratios, random order each round, the 99% order-statistic interval of their median with "
      "Holm's correction across the versions): \"faster\"/\"slower\" when it lies beyond --min-gain (1%), "
      "\"same (within noise)\" when it lies within it, else \"inconclusive\" with about how many more rounds "
      "would decide (--rounds); a version not timed in the rounds (its buffers did not fit beside the others', or "
      "the rounds could not run: see the notes) is inconclusive. The medians are each version's own timing. \"% of "
      "bound\": the version's time bound (the least bytes at "
      "the achievable DRAM bandwidth, the declared FLOPs at the peak of the precision used) over its measured time; "
      "near 100% there is little left to gain (docs/CLASSIFICATION.md); roofline.svg shows every version's leading "
      "kernel against the GPU's ceilings. Versions that fail correctness are not profiled. "
      "Each version's folder holds its correctness.md, ncu_summary.md, ncu_details.md, profile.json and "
      "profile.ncu-rep.\n";
  return md;
}

nlohmann::json comparison_json(const std::vector<VersionRow>& rows, const std::vector<RowComparison>& cmp,
                               const std::vector<std::pair<std::string, std::string>>& header,
                               const std::string& basis) {
  nlohmann::json j;
  j["schema_version"] = kReportSchemaVersion;
  for (const auto& [k, v] : header) j["header"][k] = v;
  j["time_basis"] = basis;
  j["versions"] = nlohmann::json::array();
  for (size_t i = 0; i < rows.size(); ++i) {
    nlohmann::json v = rows[i];
    v["comparison"] = cmp[i];
    j["versions"].push_back(v);
  }
  return j;
}

std::string versions_summary_text(const std::vector<VersionRow>& rows, const std::vector<RowComparison>& cmp) {
  std::vector<std::vector<std::string>> t;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const auto& c = cmp[i];
    t.push_back({r.name + (c.fastest             ? " *"
                           : c.tied_with_fastest ? " ="
                                                 : ""),
                 correctness_word(r), r.time_ms ? fmt_duration_ms(*r.time_ms) : "n/a",
                 c.speedup ? fmt::format("{:.2f}x", *c.speedup) : "n/a", change_name(c.change), class_text(r)});
  }
  return markdown_table({"version", "correct", "median", "speedup", "vs first", "class"}, t);
}

}  // namespace kprof
