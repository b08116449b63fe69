// Judging the environment (the seed's required items and implementation table) and writing
// env_check.md / env_check.json, on facts built by hand.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "flows/report_files.hpp"
#include "report/env_report.hpp"
#include "stages/env/readiness.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

namespace {

// An H200 machine where everything works (values as on the fixture machine: driver 580.159.04,
// CUDA 13.0, ncu 2025.3.1).
EnvFacts good_facts() {
  EnvFacts f;
  f.date = "2026-11-29 12:00:00 UTC";
  f.host = "gpu-host";
  f.kprof_version = "0.1.0";
  f.gpu.available = true;
  f.gpu.name = "NVIDIA H200";
  f.gpu.cc_major = 9;
  f.gpu.arch = "sm_90";
  f.gpu.sm_count = 132;
  f.gpu.memory_bytes = 150ull << 30;
  f.gpu.l2_bytes = 60ull << 20;
  f.gpu.versions = {13000, 13000, 1, ""};
  f.gpu.driver_version = "580.159.04";
  f.gpu.clocks = GpuClocks{1980, 3201, 1980, 3201};
  f.nvcc = {"nvcc", "/usr/local/cuda/bin/nvcc", "13.0.88", ""};
  f.ncu = {"ncu", "/usr/local/cuda/bin/ncu", "2025.3.1.0", ""};
  f.sanitizer = {"compute-sanitizer", "/usr/local/cuda/bin/compute-sanitizer", "2025.3.0.0", ""};
  f.counters.checked = true;
  f.counters.readable = true;
  f.counters.cycles = 3412;
  f.python.ran = true;
  f.python.path = "/usr/bin/python3";
  f.python.version = "3.12.3";
  f.python.torch.probed = f.python.torch.importable = true;
  f.python.torch.version = "2.8.0";
  f.python.torch.cuda_build = "12.8";
  f.python.torch.cuda_available = true;
  f.python.language(Implementation::Triton).probed = f.python.language(Implementation::Triton).importable = true;
  f.python.language(Implementation::Triton).version = "3.4.0";
  f.python.language(Implementation::CuteDsl).probed = true;
  f.python.language(Implementation::CuteDsl).error = "ModuleNotFoundError: No module named 'cutlass'";
  f.python.nsight_python.probed = true;
  f.python.nsight_python.error = "ModuleNotFoundError: No module named 'nsight'";
  f.cutlass.error = "no CUTLASS C++ headers: ...";
  f.cutlass.fix = "set CUTLASS_PATH ...";
  f.env_vars = {{"CUDA_VISIBLE_DEVICES", "0"}};
  f.cupti_version = 130001;
  f.cupti_dir = "/usr/local/cuda-13.0/lib";
  return f;
}

const CheckItem& find(const EnvReport& r, const std::string& name) {
  for (const auto& it : r.items)
    if (it.name == name) return it;
  throw std::runtime_error("no item " + name);
}

bool impl_ready(const EnvReport& r, Implementation i) {
  for (const auto& x : r.implementations)
    if (x.impl == i) return x.ready;
  return false;
}

}  // namespace

TEST(Readiness, CuptiItemSaysWhetherCuptiResetsTheL2) {
  EnvFacts f = good_facts();  // CUDA 13.0's libcupti: ready, the item informs and says how
  EnvReport r = assess_env(f);
  const CheckItem& old = find(r, "CUPTI");
  EXPECT_EQ(old.status, ItemStatus::Info);
  EXPECT_FALSE(old.required);
  EXPECT_EQ(old.value, "13.0 (/usr/local/cuda-13.0/lib)");
  EXPECT_NE(old.why.find("kprof's L2 flush alone"), std::string::npos) << old.why;
  EXPECT_NE(old.fix.find("setup.sh --cupti"), std::string::npos) << old.fix;
  EXPECT_TRUE(r.ready);
  nlohmann::json j = env_json(r);
  EXPECT_EQ(j["cupti"]["version"], "13.0");
  EXPECT_FALSE(j["cupti"]["cache_control"].get<bool>());

  f.cupti_version = 130500;  // PyPI's nvidia-cuda-cupti 13.5
  f.cupti_dir = "/venv/lib/python3.12/site-packages/nvidia/cu13/lib";
  r = assess_env(f);
  EXPECT_EQ(find(r, "CUPTI").status, ItemStatus::Ok);
  EXPECT_NE(find(r, "CUPTI").value.find("13.5 ("), std::string::npos);
  EXPECT_TRUE(env_json(r)["cupti"]["cache_control"].get<bool>());
  EXPECT_EQ(env_json(r)["cupti"]["api_version"], 130500);

  f.cupti_version = 0;  // PyPI's libcupti without a driver cannot answer
  f.gpu.available = false;
  EXPECT_EQ(find(assess_env(f), "CUPTI").status, ItemStatus::Skip);
  f.gpu.available = true;
  EXPECT_EQ(find(assess_env(f), "CUPTI").status, ItemStatus::Warn);
  EXPECT_TRUE(env_json(assess_env(f))["cupti"]["version"].is_null());
}

TEST(Readiness, WorkingMachineIsReady) {
  EnvReport r = assess_env(good_facts());
  EXPECT_TRUE(r.ready);
  EXPECT_TRUE(r.blockers.empty());
  EXPECT_TRUE(impl_ready(r, Implementation::CudaCpp));
  EXPECT_TRUE(impl_ready(r, Implementation::Triton));
  EXPECT_FALSE(impl_ready(r, Implementation::Cutlass));
  EXPECT_FALSE(impl_ready(r, Implementation::CuteDsl));
  EXPECT_EQ(find(r, "CuTe DSL").status, ItemStatus::Info);       // not installed: reported only
  EXPECT_EQ(find(r, "nsight-python").status, ItemStatus::Info);  // never required
  EXPECT_FALSE(find(r, "nsight-python").required);
}

TEST(Readiness, NoDriverIsNotReadyAndNamesIt) {
  EnvFacts f = good_facts();
  f.gpu = GpuInfo{};
  f.gpu.versions = {13000, 0, 0, "no CUDA driver/GPU: cudaGetDeviceCount failed: cudaErrorInsufficientDriver"};
  f.gpu.error = f.gpu.versions.error;
  f.gpu.nvml_error = "libnvidia-ml.so.1 not found: no NVIDIA driver";
  f.counters = NcuCounters{};
  f.counters_skipped = "not checked: " + f.gpu.error;
  EnvReport r = assess_env(f);
  EXPECT_FALSE(r.ready);
  ASSERT_FALSE(r.blockers.empty());
  EXPECT_NE(r.blockers[0].find("no CUDA driver/GPU"), std::string::npos);
  EXPECT_EQ(find(r, "CUDA runtime").status, ItemStatus::Fail);
  EXPECT_NE(find(r, "CUDA runtime").fix.find("nvidia-smi"), std::string::npos);
  EXPECT_EQ(find(r, "ncu counters").status, ItemStatus::Skip);
  EXPECT_EQ(find(r, "NVML clocks").status, ItemStatus::Skip);
}

TEST(Readiness, OldDriverSaysUpdateTheDriver) {
  EnvFacts f = good_facts();
  f.gpu.available = false;
  f.gpu.versions = {13000, 12040, 0, "no CUDA driver/GPU: cudaErrorInsufficientDriver"};
  EnvReport r = assess_env(f);
  EXPECT_NE(find(r, "CUDA runtime").fix.find("update the NVIDIA driver"), std::string::npos);
  EXPECT_NE(find(r, "CUDA runtime").fix.find("12.4"), std::string::npos);
}

TEST(Readiness, CounterPermissionBlocksWithTheFix) {
  EnvFacts f = good_facts();
  f.counters.readable = false;
  f.counters.permission_denied = true;
  f.counters.error = "ERR_NVGPUCTRPERM: this user may not access the NVIDIA GPU performance counters";
  f.counters.fix = counter_permission_fix();
  EnvReport r = assess_env(f);
  EXPECT_FALSE(r.ready);
  const CheckItem& c = find(r, "ncu counters");
  EXPECT_EQ(c.status, ItemStatus::Fail);
  EXPECT_TRUE(c.required);
  EXPECT_NE(c.fix.find("developer.nvidia.com/ERR_NVGPUCTRPERM"), std::string::npos);
  std::string summary = env_summary(r, false);
  EXPECT_NE(summary.find("ERR_NVGPUCTRPERM"), std::string::npos);
  EXPECT_NE(summary.find("NOT READY"), std::string::npos);
}

TEST(Readiness, MissingNcuIsRequired) {
  EnvFacts f = good_facts();
  f.ncu = {"ncu", "", "", "ncu not found on PATH"};
  f.counters = NcuCounters{};
  f.counters_skipped = "not checked: ncu is not usable";
  EnvReport r = assess_env(f);
  EXPECT_FALSE(r.ready);
  EXPECT_EQ(find(r, "ncu").status, ItemStatus::Fail);
  EXPECT_NE(find(r, "ncu").fix.find("Nsight Compute"), std::string::npos);
}

TEST(Readiness, TorchProblemsAreRequired) {
  EnvFacts f = good_facts();
  f.python.torch.importable = false;
  f.python.torch.error = "ModuleNotFoundError: No module named 'torch'";
  EXPECT_FALSE(assess_env(f).ready);
  EXPECT_NE(find(assess_env(f), "PyTorch").fix.find("KPROF_PYTHON"), std::string::npos);

  f = good_facts();
  f.python.torch.cuda_build.clear();  // CPU-only wheel
  f.python.torch.cuda_available = false;
  EnvReport r = assess_env(f);
  EXPECT_FALSE(r.ready);
  EXPECT_NE(find(r, "PyTorch").why.find("CPU-only"), std::string::npos);

  f = good_facts();
  f.python.torch.cuda_available = false;  // CUDA sees the GPU, torch does not
  r = assess_env(f);
  EXPECT_EQ(find(r, "PyTorch").status, ItemStatus::Fail);
  EXPECT_NE(find(r, "PyTorch").fix.find("13.0"), std::string::npos);
}

TEST(Readiness, NoImplementationReadyBlocks) {
  EnvFacts f = good_facts();
  f.nvcc = {"nvcc", "", "", "nvcc not found"};
  f.python.language(Implementation::Triton).importable = false;
  f.python.language(Implementation::Triton).error = "ModuleNotFoundError: No module named 'triton'";
  EnvReport r = assess_env(f);
  EXPECT_FALSE(r.ready);
  EXPECT_EQ(find(r, "Implementation toolchain").status, ItemStatus::Fail);
  EXPECT_EQ(find(r, "nvcc").status, ItemStatus::Info);
}

TEST(Readiness, CutlassNeedsNvccAndHeaders) {
  EnvFacts f = good_facts();
  f.cutlass.found = CutlassInstall{"/opt/cutlass/include", "/opt/cutlass/tools/util/include", "4.2.0", "/opt/cutlass"};
  EXPECT_TRUE(impl_ready(assess_env(f), Implementation::Cutlass));
  EXPECT_NE(find(assess_env(f), "CUTLASS headers").value.find("4.2.0"), std::string::npos);
  f.nvcc = {"nvcc", "", "", "nvcc not found"};
  EXPECT_FALSE(impl_ready(assess_env(f), Implementation::Cutlass));
  EXPECT_FALSE(impl_ready(assess_env(f), Implementation::CudaCpp));
}

TEST(Readiness, BrokenOptionalPackageWarns) {
  EnvFacts f = good_facts();
  f.python.language(Implementation::CuteDsl).error =
      "ModuleNotFoundError: No module named 'cutlass.cute'";  // another 'cutlass' package
  EXPECT_EQ(find(assess_env(f), "CuTe DSL").status, ItemStatus::Warn);
  EXPECT_TRUE(assess_env(f).ready);
}

TEST(EnvReportWriters, MarkdownHasEverySection) {
  EnvReport r = assess_env(good_facts());
  std::string md = env_markdown(r);
  for (const char* s : {"# kprof environment check",
                        "**READY**",
                        "## Checks",
                        "## Implementations",
                        "## GPU 0",
                        "NVIDIA H200",
                        "sm_90",
                        "132",
                        "60.00 MiB",
                        "1980 / 1980 MHz",
                        "580.159.04",
                        "## Tools",
                        "2025.3.1.0",
                        "## Python",
                        "2.8.0",
                        "## CUTLASS C++ headers",
                        "## CUDA environment variables",
                        "CUDA_VISIBLE_DEVICES",
                        "| cuda-cpp | ready |",
                        "| cutlass | not ready |"})
    EXPECT_NE(md.find(s), std::string::npos) << "missing: " << s;
}

TEST(EnvReportWriters, JsonCarriesTheVerdictAndValues) {
  EnvFacts f = good_facts();
  f.ncu = {"ncu", "", "", "ncu not found"};
  f.counters = NcuCounters{};
  f.counters_skipped = "not checked: ncu is not usable";
  nlohmann::json j = env_json(assess_env(f));
  EXPECT_EQ(j["schema"], "kprof.env/1");
  EXPECT_FALSE(j["ready"].get<bool>());
  EXPECT_EQ(j["gpu"]["sm_count"], 132);
  EXPECT_EQ(j["gpu"]["l2_bytes"], 60ull << 20);
  EXPECT_EQ(j["gpu"]["clocks_mhz"]["sm_max"], 1980);
  EXPECT_EQ(j["gpu"]["cuda_runtime"], "13.0");
  EXPECT_FALSE(j["tools"]["ncu"]["counters"]["checked"].get<bool>());
  EXPECT_EQ(j["python"]["torch"]["cuda_build"], "12.8");
  EXPECT_EQ(j["implementations"].size(), 4u);
  bool saw_ncu_fail = false;
  for (const auto& it : j["items"])
    if (it["name"] == "ncu") saw_ncu_fail = it["status"] == "fail" && it["required"].get<bool>();
  EXPECT_TRUE(saw_ncu_fail);
}

TEST(EnvReportWriters, WritesBothFilesNextToEachOther) {
  TempDir d;
  EnvReport r = assess_env(good_facts());
  write_env_reports(r, d / "out/env_check.md");
  EXPECT_NE(read_file_or_empty(d / "out/env_check.md").find("## Checks"), std::string::npos);
  auto j = nlohmann::json::parse(read_file_or_empty(d / "out/env_check.json"));
  EXPECT_TRUE(j["ready"].get<bool>());
  EXPECT_EQ(json_path_for("a.b/env.md"), "a.b/env.json");
  EXPECT_EQ(json_path_for("dir/report"), "dir/report.json");
}
