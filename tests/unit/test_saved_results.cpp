// Saved results written by kprof 0.x before the typed faces (issue 47): a profile.json, a
// comparison.json of `kprof run` and a pytest-gate baseline folder, committed under
// tests/data/saved/. They must stay readable by `kprof compare` (and so by the gate) whatever the
// request/outcome layer becomes. The files were written by today's writers (profile_json over the
// real H200 `copy` export, comparison_json over typed rows; the gate baseline is the folder the
// gate's save_baseline makes, one comparison.json under MACHINE_KEY/TEST): set KPROF_WRITE_SAVED=DIR
// and run this suite to write them again into DIR.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "core/fs.hpp"
#include "flows/compare.hpp"
#include "flows/profile.hpp"
#include "report/comparison.hpp"
#include "stages/analysis/analyze.hpp"

using namespace kprof;

namespace {

namespace fs = std::filesystem;

std::string saved(const std::string& rel) { return std::string(KPROF_TEST_DATA) + "/saved/" + rel; }

/// `n` per-call samples around `ms` (uniform, standard deviation sd_frac of ms).
TimingResult samples_around(double ms, double sd_frac, int n) {
  TimingResult t;
  for (int i = 0; i < n; ++i) {
    double u = 2.0 * (i + 0.5) / n - 1.0;
    double x = ms * (1.0 + sd_frac * 1.7320508 * u);
    t.kernel.summary.sum_ms.push_back(x);
    t.call_ms.push_back(x * 1.1);
  }
  t.call = summarize(t.call_ms);
  t.kernel.available = true;
  t.kernel.summary.sum = summarize(t.kernel.summary.sum_ms);
  return t;
}

/// Writes DIR/profile.json, DIR/comparison.json and DIR/gate/comparison.json as kprof 0.x does.
void write_saved(const std::string& dir) {
  make_dirs(join_path(dir, "profile"));
  ProfileOutcome out;
  out.timing = samples_around(0.140, 0.005, 40);
  AnalysisContext ctx;
  ctx.measured_ms = 0.140;
  out.analysis = analyze_ncu_csv(read_file(std::string(KPROF_TEST_DATA) + "/ncu/copy.raw.csv"), ctx);
  out.classified = true;
  KernelSpec spec;
  spec.kernel = "copy.cu";
  spec.dims.set("N", "67108864");
  out.buffers = {BufferView{"out", DType::F32, 67108864, nullptr, true, {}, false}};
  NcuReportHeader nh;
  nh.rows = {{"Kernel", "copy.cu"}, {"GPU", "NVIDIA H200"}, {"Dimensions", "N=67108864"}, {"Seed", "42"}};
  nh.timing = &out.timing;
  write_file_atomic(join_path(dir, "profile/profile.json"),
                    profile_json(join_path(dir, "profile"), spec, ProfileSettings{}, out, nh).dump(2));
  std::vector<VersionRow> rows;
  for (auto [name, ms] : {std::pair<const char*, double>{"v0", 0.200}, {"v1", 0.150}}) {
    VersionRow r;
    r.name = name;
    r.status = VersionStatus::Pass;
    fill_timing_columns(r, samples_around(ms, 0.01, 30));
    rows.push_back(r);
  }
  std::vector<std::pair<std::string, std::string>> header = {
      {"GPU", "NVIDIA H200"}, {"Dimensions", "N=1024"}, {"Seed", "42"}};
  const std::string text = comparison_json(rows, compare_versions(rows), header, choose_time_basis(rows)).dump(2);
  for (const char* sub : {"run", "gate/NVIDIA_H200__driver-580.159.04__clocks-unlocked/test_vadd"}) {
    make_dirs(join_path(dir, sub));
    write_file_atomic(join_path(dir, std::string(sub) + "/comparison.json"), text);
  }
}

}  // namespace

TEST(SavedResults, WriterOnDemand) {
  const char* dir = std::getenv("KPROF_WRITE_SAVED");
  if (!dir) GTEST_SKIP() << "set KPROF_WRITE_SAVED=DIR to write the saved results again";
  write_saved(dir);
}

TEST(SavedResults, ProfileJsonOfKprof0StaysReadable) {
  CompareInput in = read_compare_input(saved("profile"), "A");
  EXPECT_EQ(in.schema_version, 2);
  ASSERT_EQ(in.rows.size(), 1u);
  EXPECT_EQ(in.rows[0].name, "copy");
  EXPECT_EQ(in.rows[0].time_samples_ms.size(), 40u);
  ASSERT_TRUE(in.rows[0].time_ms.has_value());
  EXPECT_NEAR(*in.rows[0].time_ms, 0.140, 1e-6);
  EXPECT_EQ(in.header.at("GPU"), "NVIDIA H200");
}

TEST(SavedResults, ComparisonJsonOfKprof0StaysReadable) {
  CompareInput in = read_compare_input(saved("run/comparison.json"), "A");
  ASSERT_EQ(in.rows.size(), 2u);
  EXPECT_EQ(in.rows[0].name, "v0");
  EXPECT_EQ(in.rows[1].name, "v1");
  EXPECT_EQ(in.rows[1].time_samples_ms.size(), 30u);
  EXPECT_EQ(in.rows[1].status, VersionStatus::Pass);
}

TEST(SavedResults, GateBaselineOfKprof0ComparesAndPassesAgainstItself) {
  // The gate runs `kprof compare BASELINE_FOLDER NEW --fail-if-slower 5` (python/kprof/pytest_plugin.py).
  const std::string base = saved("gate/NVIDIA_H200__driver-580.159.04__clocks-unlocked/test_vadd");
  const std::string out = (fs::temp_directory_path() / ("kprof_saved_" + std::to_string(::getpid()))).string();
  EXPECT_EQ(run_compare({base, saved("run")}, 5.0, out), 0);
  EXPECT_TRUE(path_exists(join_path(out, "comparison.json")));
  fs::remove_all(out);
}
