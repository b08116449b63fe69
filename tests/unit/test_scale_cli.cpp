// `kprof run --sweep / --gpus` end to end on this machine (kprof's binary): the orchestration without
// a GPU. Every unit ends not_run ("environment not ready") here; what is checked is the plumbing: one
// worker per --gpus entry with its CUDA_VISIBLE_DEVICES, a unit that aborts its worker costs only its
// own result (crash), resume, the merged reports, kprof compare on the output folder, and the usage
// errors of the scale options.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>

#include "core/fs.hpp"
#include "core/subprocess.hpp"
#include "device/cuda.hpp"

using namespace kprof;

namespace {

namespace fs = std::filesystem;

const std::string kS = std::string(KPROF_EXAMPLES_DIR) + "/softmax_versions";

std::vector<std::string> run_args(const std::string& out) {
  return {KPROF_BINARY, "run",    kS + "/v0.cu", kS + "/v1.cu", "--ref",      kS + "/ref.py", "--build", "--arch",
          "sm_90",      "--size", "input=N*D",   "--size",      "output=N*D", "--D=64",       "-o",      out};
}

ProcessResult kprof_run(std::vector<std::string> argv, const std::map<std::string, std::string>& env = {}) {
  ProcessOptions o;
  o.timeout_s = 240;
  o.env = env;
  o.env["KPROF_COLOR"] = "never";
  return run_process(argv, o);
}

nlohmann::json unit_file(const std::string& out, const std::string& id) {
  return nlohmann::json::parse(read_file(out + "/units/" + id + ".json"));
}

}  // namespace

TEST(ScaleCli, TwoWorkersCrashContainedResumeAndCompare) {
  // Every unit must end not_run for the counts below: with a GPU present the units run for real
  // (tests/gpu/scenarios.sh, stage scale, covers that path).
  if (cuda_unavailable_reason().empty())
    GTEST_SKIP() << "checks the no-GPU orchestration (every unit not_run); this machine has a GPU, on which "
                    "the units run for real: the GPU suite's scale stage covers them";
  std::string out = (fs::temp_directory_path() / ("kprof_scale_cli_" + std::to_string(::getpid()))).string();
  fs::remove_all(out);
  auto argv = run_args(out);
  argv.insert(argv.end(), {"--sweep", "N=1024,2048", "--gpus", "0,1"});
  ProcessResult r = kprof_run(argv, {{"KPROF_FAULT_INJECT", "v1/D=64_N=2048=crash"}});
  ASSERT_EQ(r.exit_code, 1) << r.combined();
  EXPECT_NE(r.err.find("4 unit(s) (2 version(s) x 2 size(s)): 4 to run, 0 kept"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[gpu 1] "), std::string::npos) << r.err;  // each worker's lines name its GPU
  // 2 sizes over 2 workers: one size each, with its CUDA_VISIBLE_DEVICES.
  EXPECT_EQ(unit_file(out, "v0/D=64_N=1024")["place"]["gpu_visible"], "0");
  EXPECT_EQ(unit_file(out, "v0/D=64_N=2048")["place"]["gpu_visible"], "1");
  // The aborted unit alone is crash; its neighbour of the same worker still has its own result.
  nlohmann::json crash = unit_file(out, "v1/D=64_N=2048");
  EXPECT_EQ(crash["status"], "crash");
  EXPECT_NE(crash["reason"].get<std::string>().find("signal 6"), std::string::npos) << crash.dump();
  EXPECT_EQ(crash["written_by"], "worker");
  EXPECT_EQ(unit_file(out, "v0/D=64_N=2048")["status"], "not_run");
  EXPECT_NE(unit_file(out, "v0/D=64_N=2048")["reason"].get<std::string>().find("environment not ready"),
            std::string::npos);
  std::string md = read_file(out + "/comparison.md");
  EXPECT_NE(md.find("## D=64 N=2048"), std::string::npos);
  EXPECT_NE(md.find("### v1: class and % of bound by size"), std::string::npos);
  EXPECT_NE(r.out.find("0 of 4 unit(s) ok"), std::string::npos) << r.out;
  // Resume: the crash is kept, the three not_run units run again.
  double kept = file_mtime(out + "/units/v1/D=64_N=2048.json");
  ProcessResult again = kprof_run(argv);
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("3 to run, 1 kept"), std::string::npos) << again.err;
  EXPECT_EQ(file_mtime(out + "/units/v1/D=64_N=2048.json"), kept);
  // kprof compare reads the output folder: units paired by version and size.
  ProcessResult cmp = kprof_run({KPROF_BINARY, "compare", out, out, "-o", out + "/cmp"});
  EXPECT_EQ(cmp.exit_code, 0) << cmp.combined();
  EXPECT_NE(read_file(out + "/cmp/comparison.md").find("v1/D=64_N=2048"), std::string::npos);
  fs::remove_all(out);
}

TEST(ScaleCli, ScaleOptionUsageErrors) {
  std::string out = (fs::temp_directory_path() / ("kprof_scale_usage_" + std::to_string(::getpid()))).string();
  struct Case {
    std::vector<std::string> extra;
    std::string message;
  };
  for (const auto& c : std::vector<Case>{{{"--sweep", "N=8..2"}, "the range must run"},
                                         {{"--sweep", "N=1Kb..2Ki"}, "is not a size"},
                                         {{"--time", "10"}, "--time is an option of --slurm"},
                                         {{"--gpus", "0,1", "--slurm"}, "exclude each other"},
                                         {{"--gpus", "zero"}, "neither a GPU index nor a UUID"}}) {
    auto argv = run_args(out);
    argv.insert(argv.end(), c.extra.begin(), c.extra.end());
    ProcessResult r = kprof_run(argv);
    EXPECT_EQ(r.exit_code, 2) << c.message << "\n" << r.combined();
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
  }
  fs::remove_all(out);
}
