// correctness.md / correctness.json: the layout users and scripts read.
#include <gtest/gtest.h>

#include <unistd.h>

#include "core/fs.hpp"
#include "report/correctness_report.hpp"

using namespace kprof;

namespace {

CheckResult failing_result() {
  CheckResult r;
  TrialResult t;
  t.seed = 7;
  OutputComparison c;
  c.name = "C";
  c.dtype = DType::F32;
  c.count = 100;
  c.tol = {1e-4, 1e-3, "default for float32"};
  c.mismatches = 13;
  c.never_written = 12;
  c.first_never_written = {88, 89};
  c.first_mismatches = {{5, 1.5, 2.0}};
  c.max_abs = 0.5;
  c.reason = "12 element(s) never written; 1 element(s) outside atol";
  c.kernel_preview = {1, 2};
  c.reference_preview = {1, 2};
  t.outputs.push_back(c);
  t.guards.push_back({"C", false, 400, 128});
  t.modified_inputs.push_back({"A", 3, {0, 1, 2}, true});
  r.trials.push_back(t);
  r.warnings.push_back("output 'C': atol=0.0001 is at least the reference's largest magnitude");
  return r;
}

}  // namespace

TEST(CorrectnessReport, MarkdownNamesEveryProblem) {
  auto md = correctness_markdown(failing_result(), {{"Kernel", "k.cu"}, {"GPU", "NVIDIA H200"}});
  EXPECT_NE(md.find("# Correctness: FAIL"), std::string::npos);
  EXPECT_NE(md.find("| Kernel | k.cu |"), std::string::npos);
  EXPECT_NE(md.find("Never written (12 elements; first: 88, 89)"), std::string::npos);
  EXPECT_NE(md.find("Write outside buffer `C`"), std::string::npos);
  EXPECT_NE(md.find("Input `A` was modified"), std::string::npos);
  EXPECT_NE(md.find("## Warnings"), std::string::npos);
  EXPECT_NE(md.find("| 5 | 1.5 | 2 | 0.5 |"), std::string::npos);
}

TEST(CorrectnessReport, JsonCarriesTheFaultAndStatus) {
  CheckResult r;
  r.fault =
      KernelFault{FaultKind::LaunchError, "cudaErrorInvalidConfiguration", "launching solve() failed", "check", false};
  r.fault_trial = 0;
  r.trials.push_back({});
  auto j = correctness_json(r, {{"Kernel", "bad.cu"}});
  EXPECT_EQ(j["status"], "FAIL");
  EXPECT_EQ(j["fault"]["kind"], "launch error");
  EXPECT_EQ(j["fault"]["cuda_error"], "cudaErrorInvalidConfiguration");
  EXPECT_EQ(j["header"]["Kernel"], "bad.cu");
  auto md = correctness_markdown(r, {});
  EXPECT_NE(md.find("## Kernel fault (launch error)"), std::string::npos);
}

TEST(CorrectnessReport, WritesBothFiles) {
  std::string dir = "/tmp/kprof_corr_" + std::to_string(::getpid());
  write_correctness_reports(dir, failing_result(), {});
  EXPECT_TRUE(path_exists(dir + "/correctness.md"));
  auto j = nlohmann::json::parse(read_file(dir + "/correctness.json"));
  EXPECT_EQ(j["trials"][0]["outputs"][0]["never_written"], 12);
  EXPECT_EQ(j["trials"][0]["guard_violations"][0]["buffer"], "C");
  std::system(("rm -rf " + dir).c_str());
}
