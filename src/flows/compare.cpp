#include "flows/compare.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>

#include "core/outcome.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/json_text.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "report/compare_report.hpp"
#include "report/html_pages.hpp"
#include "flows/report_files.hpp"
#include "flows/compare_reports.hpp"
#include "flows/units.hpp"
#include "report/comparison.hpp"
#include "report/units_report.hpp"
#include "stages/results/saved_run_check.hpp"

namespace kprof {
namespace {

namespace fs = std::filesystem;

const char* kReadHint =
    "pass comparison.json files of `kprof run`, profile.json files of `kprof profile`, or their folders (also the "
    "output folder of a scaled run); or Nsight Compute reports themselves, .ncu-rep or raw .csv files (what "
    "`kprof analyze` reads), all of one kind";

std::optional<double> num_at(const nlohmann::json& j, const nlohmann::json::json_pointer& p) {
  if (!j.contains(p) || !j.at(p).is_number()) return std::nullopt;
  return j.at(p).get<double>();
}

/// A schema_version 1 row of comparison.json (formatted strings): what can be read from it.
VersionRow row_v1(const nlohmann::json& v) {
  VersionRow r;
  r.name = v.value("name", "");
  r.kernel = v.value("kernel", "");
  r.status = v.value("correct", false) ? VersionStatus::Pass : VersionStatus::Fail;
  if (!r.correct()) r.status_reason = v.value("correctness", "");
  r.profiled = v.value("profiled", false);
  r.time_ms = num_at(v, "/time_ms"_json_pointer);
  r.spread_ms = num_at(v, "/spread_ms"_json_pointer);
  r.call_ms = num_at(v, "/call_ms"_json_pointer);
  r.kernel_ms = num_at(v, "/kernel_ms"_json_pointer);
  r.sm_sol = num_at(v, "/sm_sol_pct"_json_pointer);
  r.mem_sol = num_at(v, "/memory_sol_pct"_json_pointer);
  r.achieved_occupancy = num_at(v, "/achieved_occupancy_pct"_json_pointer);
  r.pct_of_bound = num_at(v, "/pct_of_bound"_json_pointer);
  r.profile = ProfileStatus::NotClassified;
  r.profile_reason = v.value("class", "");
  return r;
}

/// A schema_version 1 profile.json: the timing and the call's class.
VersionRow profile_row_v1(const nlohmann::json& j, const std::string& path) {
  VersionRow r;
  auto kernel =
      j.contains("/header/Kernel"_json_pointer) ? j.at("/header/Kernel"_json_pointer).get<std::string>() : path;
  r.name = file_stem(kernel);
  r.kernel = kernel;
  r.status = VersionStatus::Unchecked;
  r.profiled = true;
  r.call_ms = num_at(j, "/timing/call_time_ms/median"_json_pointer);
  r.kernel_ms = num_at(j, "/timing/kernel_time/sum_ms/median"_json_pointer);
  r.time_ms = r.kernel_ms ? r.kernel_ms : r.call_ms;
  r.spread_ms = r.kernel_ms ? num_at(j, "/timing/kernel_time/sum_ms/stddev"_json_pointer)
                            : num_at(j, "/timing/call_time_ms/stddev"_json_pointer);
  r.profile = ProfileStatus::NotClassified;
  r.profile_reason = "schema_version 1: class not read";
  return r;
}

std::map<std::string, std::string> header_of(const nlohmann::json& j) {
  std::map<std::string, std::string> h;
  if (auto it = j.find("header"); it != j.end() && it->is_object())
    for (const auto& [k, v] : it->items())
      if (v.is_string()) h[k] = v.get<std::string>();
  return h;
}

/// correctness.json beside a profile.json, when present, sets the row's status.
void read_correctness_beside(const std::string& profile_path, VersionRow& r) {
  std::string cj = (fs::path(profile_path).parent_path() / "correctness.json").string();
  if (!path_exists(cj)) return;
  nlohmann::json c = read_json_file(cj);
  bool pass = c.value("pass", false);
  r.status = pass ? VersionStatus::Pass : VersionStatus::Fail;
  if (!pass) r.status_reason = "see " + cj;
}

std::string resolve(const std::string& path) {
  if (!fs::is_directory(path)) return path;
  for (const char* name : {"comparison.json", "profile.json", "units.json"}) {
    std::string p = (fs::path(path) / name).string();
    if (path_exists(p)) return p;
  }
  throw usage_error(path + " holds neither comparison.json nor profile.json", kReadHint);
}

}  // namespace

CompareInput read_compare_input(const std::string& path, const std::string& label) {
  CompareInput in;
  in.label = label;
  in.path = resolve(path);
  if (!path_exists(in.path)) throw usage_error("cannot read " + in.path + ": no such file", kReadHint);
  try {
    nlohmann::json j;
    if (fs::path(in.path).filename() == "units.json") {  // a scaled run not merged yet (kprof run --slurm --no-wait)
      UnitPlan plan = read_unit_plan(in.path);
      plan.out = parent_dir(in.path);
      std::vector<UnitResult> results;
      for (const auto& u : plan.units)
        if (auto r = read_unit_result(plan.out, u)) results.push_back(*r);
      j = units_json(merge_unit_results(plan.units, results), plan.axes, {});
    } else {
      std::error_code ec;
      if (auto size = fs::file_size(in.path, ec); !ec && size > (16u << 20))  // progress on long work
        print_progress(fmt::format("compare: reading {} ({})", in.path, fmt_bytes(static_cast<double>(size))));
      j = read_json_file(in.path);  // damaged_input when it is not whole JSON
    }
    if (!j.is_object()) throw usage_error(in.path + " is not a kprof result (not a JSON object)", kReadHint);
    in.schema_version = j.value("schema_version", 1);
    in.header = header_of(j);
    if (j.contains("versions")) {
      for (const auto& v : j.at("versions"))
        in.rows.push_back(in.schema_version >= 2 ? v.get<VersionRow>() : row_v1(v));
    } else if (j.contains("timing") || j.contains("summary")) {
      in.rows.push_back(in.schema_version >= 2 && j.contains("summary") ? j.at("summary").get<VersionRow>()
                                                                        : profile_row_v1(j, in.path));
      read_correctness_beside(in.path, in.rows.back());
    } else {
      throw usage_error(in.path + " is neither a comparison.json nor a profile.json of kprof", kReadHint);
    }
  } catch (const nlohmann::json::exception&) {
    throw wrong_kind_in(in.path, fmt::format("{} version(s) read whole before it", in.rows.size()));
  }
  for (auto& row : in.rows) {  // no verdict and no gate from times that cannot be (issue 50)
    check_saved_times(in.path, row);
    if (std::string note = bound_samples(row); !note.empty()) print_warning(in.path + ": " + note);
  }
  return in;
}

int run_compare(const std::vector<std::string>& paths, std::optional<double> fail_if_slower_pct,
                const std::string& output_dir, bool html) {
  if (paths.size() < 2) throw usage_error("kprof compare needs at least two results", kReadHint);
  size_t reports = 0;
  for (const auto& p : paths) reports += is_ncu_report_path(p) ? 1 : 0;
  if (reports == paths.size()) return run_compare_reports(paths, fail_if_slower_pct, output_dir, html);
  if (reports > 0)
    throw usage_error(
        "kprof compare takes either Nsight Compute reports or saved kprof results, not both",
        "compare .ncu-rep/.csv reports with each other, and comparison.json/profile.json with each other");
  std::vector<CompareInput> inputs;
  for (size_t i = 0; i < paths.size(); ++i)
    inputs.push_back(read_compare_input(paths[i], std::string(1, static_cast<char>('A' + std::min<size_t>(i, 25)))));
  std::vector<std::string> paired;
  bool one_each = true;
  for (const auto& in : inputs) one_each = one_each && in.rows.size() == 1;
  if (one_each)  // one version per file (profile.json): pair them whatever their names
    for (auto& in : inputs)
      if (in.rows[0].name != inputs[0].rows[0].name) {
        paired.push_back(fmt::format("{}'s only version {} is paired with the baseline's {}", in.label, in.rows[0].name,
                                     inputs[0].rows[0].name));
        in.rows[0].name = inputs[0].rows[0].name;
      }
  CompareResult r = compare_inputs(std::move(inputs), fail_if_slower_pct);
  r.warnings.insert(r.warnings.end(), paired.begin(), paired.end());
  for (const auto& w : r.warnings) print_warning(w);
  // Both reports rendered before either is written: both are written whole, or neither.
  const std::string md = compare_markdown(r), json = json_text(compare_json(r)) + "\n";
  make_dirs(output_dir);
  write_file_atomic(join_path(output_dir, "comparison.md"), compare_markdown(r));
  nlohmann::json cj = compare_json(r);
  if (html) cj["report_html"] = join_path(output_dir, "report.html");
  const std::string text = json_text(cj) + "\n";
  write_file_atomic(join_path(output_dir, "comparison.json"), text);
  note_report(join_path(output_dir, "comparison.json"), text);
  if (html) write_html_page(output_dir, compare_page(cj));
  std::fputs(compare_text(r).c_str(), stdout);
  std::printf("report: %s\n", join_path(output_dir, "comparison.md").c_str());
  return r.exit_code;
}

}  // namespace kprof
