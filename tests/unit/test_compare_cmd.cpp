// kprof compare over saved results: profile.json / comparison.json written by kprof's own code
// paths (profile_json over a real H200 export, comparison_json over typed rows), versions paired by
// name, the cross-run noise rule, the header warnings and every exit code of --fail-if-slower.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/subprocess.hpp"
#include "flows/compare.hpp"
#include "flows/profile.hpp"
#include "report/compare_report.hpp"
#include "report/comparison.hpp"
#include "stages/analysis/analyze.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;

namespace {

namespace fs = std::filesystem;

std::string fresh_dir(const std::string& name) {
  std::string d = (fs::temp_directory_path() / ("kprof_compare_" + name + "_" + std::to_string(::getpid()))).string();
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

/// A timing result of `n` calls around `ms` (call time 10% above it), spread evenly over
/// ms * (1 +- sd_frac * sqrt(3)) (a uniform sample whose standard deviation is sd_frac of ms).
TimingResult timing_around(double ms, double sd_frac, int n = 50) {
  TimingResult t;
  for (int i = 0; i < n; ++i) {
    double u = 2.0 * (i + 0.5) / n - 1.0;  // -1..1
    double x = ms * (1.0 + sd_frac * 1.7320508 * u);
    t.kernel.summary.sum_ms.push_back(x);
    t.call_ms.push_back(x * 1.1);
  }
  t.call = summarize(t.call_ms);
  t.kernel.available = true;
  t.kernel.summary.sum = summarize(t.kernel.summary.sum_ms);
  return t;
}

/// Writes DIR/profile.json the way `kprof profile` does (profile_json), from the real H200 `copy`
/// export analysed with kprof's measured time; returns the outcome.
ProfileOutcome write_profile(const std::string& dir, double ms, double sd_frac, const std::string& gpu = "NVIDIA H200",
                             const std::string& n = "67108864") {
  ProfileOutcome out;
  out.timing = timing_around(ms, sd_frac);
  AnalysisContext ctx;
  ctx.measured_ms = ms;
  out.analysis = analyze_ncu_csv(read_file(std::string(KPROF_TEST_DATA) + "/ncu/copy.raw.csv"), ctx);
  out.classified = true;
  KernelSpec spec;
  spec.kernel = "copy.cu";
  spec.dims.set("N", n);
  spec.dims.set("alpha", "0.5");
  spec.seed = 7;
  out.buffers = {BufferView{"out", DType::F32, 67108864, nullptr, true, {}, false}};
  ProfileSettings s;
  NcuReportHeader nh;
  nh.rows = {{"Kernel", "copy.cu"},
             {"GPU", gpu},
             {"Dimensions", "N=" + n},
             {"Seed", "7"},
             {"Buffer out", "f32 x 67108864"},
             {"Execution time", "0.140 ms (CUPTI)"},
             {"ncu", "22 replay passes"}};
  nh.timing = &out.timing;
  write_file_atomic(join_path(dir, "profile.json"), profile_json(dir, spec, s, out, nh).dump(2));
  return out;
}

VersionRow version(const std::string& name, VersionStatus st, double ms, double sd_frac) {
  VersionRow r;
  r.name = name;
  r.status = st;
  if (st != VersionStatus::Pass) r.status_reason = "C: 3 of 1024 elements differ";
  fill_timing_columns(r, timing_around(ms, sd_frac));
  return r;
}

/// Writes DIR/comparison.json the way `kprof run` does (choose_time_basis, compare_versions, comparison_json).
std::string write_run(const std::string& dir, std::vector<VersionRow> rows, const std::string& seed = "0") {
  std::string basis = choose_time_basis(rows);
  std::vector<std::pair<std::string, std::string>> header = {
      {"GPU", "NVIDIA H200"}, {"Dimensions", "N=1024"}, {"Seed", seed}};
  write_file_atomic(join_path(dir, "comparison.json"),
                    comparison_json(rows, compare_versions(rows), header, basis).dump(2));
  return join_path(dir, "comparison.json");
}

/// The built kprof (testutil::run_kprof).
ProcessResult kprof_cli(const std::vector<std::string>& args) { return testutil::run_kprof(args); }

}  // namespace

TEST(CompareCmd, ProfileJsonCarriesTheHeadlineRow) {
  std::string d = fresh_dir("profile");
  ProfileOutcome out = write_profile(d, 0.140, 0.005);
  CompareInput in = read_compare_input(d, "A");  // a folder: its profile.json
  EXPECT_EQ(in.schema_version, 2);
  ASSERT_EQ(in.rows.size(), 1u);
  const VersionRow& r = in.rows[0];
  EXPECT_EQ(r.name, "copy");
  EXPECT_EQ(r.status, VersionStatus::Unchecked);  // no correctness.json beside it
  EXPECT_EQ(r.profile, ProfileStatus::Classified);
  EXPECT_EQ(r.cls, out.analysis->verdict.cls());
  ASSERT_TRUE(r.dram_bytes && r.sm_sol && r.mem_sol);
  EXPECT_GT(*r.dram_bytes, 5e8);  // the 64 Mi float4 copy moves 1 GiB through DRAM
  EXPECT_NEAR(*r.time_ms, 0.140, 1e-9);
  EXPECT_EQ(r.time_samples_ms.size(), 50u);
  write_file_atomic(join_path(d, "correctness.json"), R"({"schema_version": 2, "pass": false})");
  EXPECT_EQ(read_compare_input(d, "A").rows[0].status, VersionStatus::Fail);
}

TEST(CompareCmd, ProfileJsonHeaderHoldsTextAndInputsHoldNumbers) {
  std::string d = fresh_dir("profile_inputs");
  write_profile(d, 0.140, 0.005);
  nlohmann::json j = nlohmann::json::parse(read_file(join_path(d, "profile.json")));
  EXPECT_EQ(j["header"]["Kernel"], "copy.cu");
  EXPECT_EQ(j["header"]["GPU"], "NVIDIA H200");
  for (const char* typed : {"Execution time", "ncu", "Buffer out"})
    EXPECT_FALSE(j["header"].contains(typed)) << typed << " is a formatted number: typed in timing/ncu_run/inputs";
  // The problem's identity stays as text too: kprof compare matches it across results.
  EXPECT_EQ(j["header"]["Dimensions"], "N=67108864");
  EXPECT_EQ(j["header"]["Seed"], "7");
  EXPECT_EQ(j["inputs"]["dims"]["N"], 67108864);
  EXPECT_TRUE(j["inputs"]["dims"]["N"].is_number_integer());
  EXPECT_DOUBLE_EQ(j["inputs"]["dims"]["alpha"].get<double>(), 0.5);
  EXPECT_EQ(j["inputs"]["seed"], 7);
  ASSERT_EQ(j["inputs"]["buffers"].size(), 1u);
  EXPECT_EQ(j["inputs"]["buffers"][0]["bytes"], 268435456);
  EXPECT_EQ(j["inputs"]["buffers"][0]["output"], true);
  EXPECT_TRUE(j["timing"]["call_time_ms"]["median"].is_number());  // the execution time, typed
  // kprof compare still reads the GPU from the header.
  EXPECT_EQ(read_compare_input(d, "A").header.at("GPU"), "NVIDIA H200");
}

TEST(CompareCmd, SameKernelTwiceIsInconclusiveAndPassesTheGate) {
  std::string a = fresh_dir("same_a"), b = fresh_dir("same_b");
  write_profile(a, 0.140, 0.005);
  write_profile(b, 0.1415, 0.005);  // 1% slower: beyond the spread, within what runs differ by
  CompareResult r = compare_inputs({read_compare_input(a, "A"), read_compare_input(b, "B")}, 5.0);
  ASSERT_EQ(r.versions.size(), 1u);
  EXPECT_EQ(r.versions[0].cmp[1].change, Change::Inconclusive);  // one run a side: the run is the unit
  EXPECT_TRUE(r.failures.empty());
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(r.warnings.empty());
}

TEST(CompareCmd, ASlowdownBetweenSavedRunsIsReportedNotDecided) {
  std::string a = fresh_dir("slow_a"), b = fresh_dir("slow_b");
  write_profile(a, 0.140, 0.005);
  write_profile(b, 0.168, 0.005);  // 20% slower
  auto inputs = std::vector<CompareInput>{read_compare_input(a, "A"), read_compare_input(b, "B")};
  CompareResult r = compare_inputs(inputs, 5.0);
  EXPECT_EQ(r.versions[0].cmp[1].change, Change::Inconclusive);
  ASSERT_TRUE(r.versions[0].decision[1].has_value());
  EXPECT_EQ(r.versions[0].decision[1]->decision, Decision::Inconclusive);
  EXPECT_NE(r.versions[0].decision[1]->reason.find("+20.0% is more than runs differ by here"), std::string::npos)
      << r.versions[0].decision[1]->reason;
  EXPECT_TRUE(r.failures.empty());  // the pytest gate finds slowdowns by re-timing
  EXPECT_EQ(r.exit_code, 0);
  std::string md = compare_markdown(r);
  EXPECT_NE(md.find("| copy | A -> B | time |"), std::string::npos) << md;
  EXPECT_NE(md.find("+20.0%"), std::string::npos) << md;
  EXPECT_NE(md.find("the run is the unit"), std::string::npos) << md;
  EXPECT_EQ(compare_json(r)["gate"]["passed"], true);
  EXPECT_EQ(compare_json(r)["across_runs_rule"], "run_as_unit");
}

TEST(CompareCmd, RunsPairVersionsByNameAndCatchCorrectnessAndMissingVersions) {
  std::string a = fresh_dir("run_a"), b = fresh_dir("run_b");
  write_run(a, {version("v0", VersionStatus::Pass, 1.0, 0.01), version("v1", VersionStatus::Pass, 0.5, 0.01),
                version("v2", VersionStatus::Pass, 0.4, 0.01)});
  // B: v1 now fails, v2 is gone, v3 is new, v0 is faster.
  write_run(b, {version("v1", VersionStatus::Fail, 0.5, 0.01), version("v0", VersionStatus::Pass, 0.8, 0.01),
                version("v3", VersionStatus::Pass, 0.3, 0.01)});
  CompareResult r = compare_inputs({read_compare_input(a, "A"), read_compare_input(b, "B")}, 5.0);
  ASSERT_EQ(r.versions.size(), 4u);
  EXPECT_EQ(r.versions[0].name, "v0");
  EXPECT_EQ(r.versions[0].cmp[1].change, Change::Inconclusive);  // 20% faster, but one run a side
  EXPECT_EQ(r.versions[3].name, "v3");                           // new in B: compared with nothing
  EXPECT_EQ(r.versions[3].cmp[1].change, Change::NotComparable);
  ASSERT_EQ(r.failures.size(), 2u);
  EXPECT_EQ(r.failures[0].version, "v1");
  EXPECT_NE(r.failures[0].reason.find("no longer correct: fail"), std::string::npos);
  EXPECT_EQ(r.failures[1].version, "v2");
  EXPECT_EQ(r.failures[1].reason, "missing");
  EXPECT_EQ(r.exit_code, 1);
}

TEST(CompareCmd, AnotherGpuSeedOrSchemaIsComparedWithAWarning) {
  std::string a = fresh_dir("warn_a"), b = fresh_dir("warn_b"), c = fresh_dir("warn_c");
  write_run(a, {version("v0", VersionStatus::Pass, 1.0, 0.01)});
  write_run(b, {version("v0", VersionStatus::Pass, 1.0, 0.01)}, "7");
  // A schema_version 1 file (formatted strings) as the first kprof versions wrote it.
  write_file_atomic(join_path(c, "comparison.json"),
                    R"({"header": {"GPU": "NVIDIA A100", "Dimensions": "N=1024", "Seed": "0"},
                        "versions": [{"name": "v0", "correct": true, "correctness": "PASS", "profiled": true,
                                      "time_ms": 1.0, "spread_ms": 0.01, "class": "Memory-Bound"}]})");
  CompareResult r =
      compare_inputs({read_compare_input(a, "A"), read_compare_input(b, "B"), read_compare_input(c, "C")}, 5.0);
  ASSERT_EQ(r.warnings.size(), 3u);
  EXPECT_NE(r.warnings[0].find("another Seed"), std::string::npos) << r.warnings[0];
  EXPECT_NE(r.warnings[1].find("another GPU"), std::string::npos) << r.warnings[1];
  EXPECT_NE(r.warnings[2].find("schema_version 1"), std::string::npos) << r.warnings[2];
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.versions[0].cmp[2].change, Change::Inconclusive);
}

TEST(CompareCmd, ProfilesOfAnotherSizeAreComparedWithAWarning) {
  // Two `kprof profile` results of different problem sizes: compare says so (profile.json keeps
  // the Dimensions row in its header beside the typed "inputs").
  std::string a = fresh_dir("size_a"), b = fresh_dir("size_b");
  write_profile(a, 0.140, 0.005);
  write_profile(b, 0.070, 0.005, "NVIDIA H200", "33554432");
  CompareResult r = compare_inputs({read_compare_input(a, "A"), read_compare_input(b, "B")}, 5.0);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("another Dimensions"), std::string::npos) << r.warnings[0];
  EXPECT_NE(r.warnings[0].find("N=33554432 against N=67108864"), std::string::npos) << r.warnings[0];
}

TEST(CompareCmd, UnreadableInputsAreUsageErrors) {
  std::string d = fresh_dir("bad");
  write_file_atomic(join_path(d, "broken.json"), "{\"versions\": [");
  write_file_atomic(join_path(d, "other.json"), R"({"hello": 1})");
  write_file_atomic(join_path(d, "status.json"),
                    R"({"schema_version": 2, "versions": [{"name": "v0", "status": "PASS"}]})");
  for (const char* f : {"broken.json", "other.json", "status.json", "missing.json"}) {
    try {
      read_compare_input(join_path(d, f), "A");
      ADD_FAILURE() << f << " was read";
    } catch (const Error& e) {
      EXPECT_EQ(static_cast<int>(e.code()), 2) << f;
      EXPECT_FALSE(e.hint().empty()) << f;
    }
  }
  std::string empty = fresh_dir("empty");
  EXPECT_THROW(read_compare_input(empty, "A"), Error);
}

TEST(CompareCmd, CommandLineExitCodesOfTheGate) {
  std::string a = fresh_dir("cli_a"), b = fresh_dir("cli_b"), c = fresh_dir("cli_c"), out = fresh_dir("cli_out");
  write_run(a, {version("v0", VersionStatus::Pass, 1.0, 0.01), version("v1", VersionStatus::Pass, 0.5, 0.01)});
  write_run(b, {version("v0", VersionStatus::Pass, 1.005, 0.01), version("v1", VersionStatus::Pass, 0.5, 0.01)});
  write_run(c, {version("v0", VersionStatus::Pass, 1.3, 0.01), version("v1", VersionStatus::Pass, 0.5, 0.01)});
  auto same = kprof_cli({"compare", a, b, "--fail-if-slower", "5", "-o", out});
  EXPECT_EQ(same.exit_code, 0) << same.combined();
  EXPECT_NE(same.out.find("inconclusive"), std::string::npos) << same.out;
  EXPECT_TRUE(path_exists(join_path(out, "comparison.md")));
  auto j = nlohmann::json::parse(read_file(join_path(out, "comparison.json")));
  EXPECT_EQ(j["schema_version"], 2);
  EXPECT_EQ(j["gate"]["passed"], true);
  // 30% slower between two saved runs: reported, not decided (the gate that re-times decides).
  auto slower = kprof_cli({"compare", a, c, "--fail-if-slower", "5", "-o", out});
  EXPECT_EQ(slower.exit_code, 0) << slower.combined();
  EXPECT_NE(slower.out.find("+30.0% is more than runs differ by here"), std::string::npos) << slower.out;
  EXPECT_EQ(kprof_cli({"compare", a, c, "-o", out}).exit_code, 0);  // no gate: report only
  auto bad = kprof_cli({"compare", a, join_path(out, "nope.json"), "--fail-if-slower", "5", "-o", out});
  EXPECT_EQ(bad.exit_code, 2) << bad.combined();
  EXPECT_NE(bad.err.find("hint:"), std::string::npos) << bad.err;
  EXPECT_EQ(kprof_cli({"compare", a}).exit_code, 2);  // one result: nothing to compare
}
