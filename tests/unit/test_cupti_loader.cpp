// CUPTI loaded at run time (device/cupti_loader.hpp): the search order, the library found on this
// machine (the CUDA toolkit's, which has no driver here), and neither the executable nor anything
// else of kprof linking libcupti, libcuda or NVML.
#include <gtest/gtest.h>

#include <cupti.h>
#include <dlfcn.h>

#include <algorithm>

#include "core/host.hpp"
#include "core/fs.hpp"
#include "core/settings.hpp"
#include "core/subprocess.hpp"
#include "device/cupti_loader.hpp"
#include "device/cupti_version.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using kprof::testutil::ScopedEnv;

namespace {

std::vector<std::string> dirs_only() {
  std::vector<std::string> out;
  for (const auto& d : cupti_search_dirs()) out.push_back(d.first);
  return out;
}

size_t index_of(const std::vector<std::string>& v, const std::string& x) {
  return static_cast<size_t>(std::find(v.begin(), v.end(), x) - v.begin());
}

}  // namespace

// kprof's choices, then cuda-pathfinder's order: wheels, conda, the system loader, CUDA_HOME.
TEST(CuptiLoader, SearchOrderPutsTheUsersChoiceFirstThenCudaPathfindersOrder) {
  ScopedEnv conda("CONDA_PREFIX", "/opt/conda/envs/k");
  Settings s = settings();
  s.cupti_dir = "/opt/cupti-13.5/lib";
  s.cache_dir = "/tmp/kprof-cache-test";
  s.cuda_roots = {"/opt/cuda-custom"};
  ScopedSettings scoped(s);
  Host h;
  h.cupti_dirs = {"/venv/site-packages/nvidia/cu13/lib"};
  ScopedHost hosted(h);
  std::vector<std::string> d = dirs_only();
  ASSERT_GE(d.size(), 5u);
  EXPECT_EQ(d[0], "/opt/cupti-13.5/lib");
  EXPECT_EQ(d[1], "/tmp/kprof-cache-test/cupti/nvidia/cu13/lib");
  size_t wheel = index_of(d, "/venv/site-packages/nvidia/cu13/lib");
  size_t custom = index_of(d, "/opt/cuda-custom/lib64");
  size_t standard = index_of(d, "/usr/local/cuda/lib64");
  ASSERT_LT(wheel, d.size());
  ASSERT_LT(custom, d.size());
  ASSERT_LT(standard, d.size());
  size_t conda_lib = index_of(d, "/opt/conda/envs/k/lib"), system = index_of(d, "");
  ASSERT_LT(conda_lib, d.size());
  ASSERT_LT(system, d.size());
  EXPECT_LT(wheel, conda_lib);  // a wheel beside PyTorch before conda and any toolkit
  EXPECT_LT(conda_lib, system);
  EXPECT_LT(system, custom);  // the system loader before CUDA_HOME
  EXPECT_LT(custom, standard);
  EXPECT_EQ(std::count(d.begin(), d.end(), "/usr/local/cuda/lib64"), 1);  // no folder twice
}

TEST(CuptiLoader, LoadsALibcuptiOfThisMachineAndForwardsCalls) {
  bool toolkit = path_exists("/usr/local/cuda/lib64/libcupti.so.13");
  const CuptiLoad& l = cupti_load();
  if (!toolkit && !l.ok()) GTEST_SKIP() << "no libcupti.so.13 on this machine: tried " << l.tried.size() << " places";
  ASSERT_TRUE(l.ok());
  EXPECT_NE(l.path.find("libcupti.so.13"), std::string::npos) << l.path;
  EXPECT_FALSE(l.source.empty());
  EXPECT_EQ(cupti_library_dir(), parent_dir(l.path));
  EXPECT_NE(cupti_symbol("cuptiGetVersion"), nullptr);
  EXPECT_EQ(cupti_symbol("cuptiNoSuchFunction"), nullptr);
  // The forwarded functions answer (a driver-less machine may refuse, but never crashes).
  const char* text = nullptr;
  EXPECT_EQ(cuptiGetResultString(CUPTI_ERROR_INVALID_PARAMETER, &text), CUPTI_SUCCESS);
  ASSERT_NE(text, nullptr);
  EXPECT_NE(std::string(text).find("CUPTI_ERROR_INVALID_PARAMETER"), std::string::npos) << text;
  uint32_t v = cupti_api_version();
  if (v != 0) EXPECT_GE(v, 130000u);
}

TEST(CuptiLoader, TheExecutableLinksNoCuptiNoDriverNoNvml) {
  ProcessResult r = run_process({"readelf", "-d", KPROF_BINARY}, {60.0});
  if (r.not_found) GTEST_SKIP() << "readelf is not installed (binutils)";
  ASSERT_TRUE(r.ok()) << r.combined();
  EXPECT_NE(r.out.find("(NEEDED)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("libcupti"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("libcuda.so"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("libnvidia-ml"), std::string::npos) << r.out;
}

// The profiler libraries come from the loaded CUPTI's own folder, not from whatever the system
// loader finds first: on 2026-12-05 a wheel's CUPTI 13.0 with $LD_LIBRARY_PATH naming CUPTI 13.5's
// folder crashed kprof's range profiler (docs/gpu-runs.md).
TEST(CuptiLoader, TheProfilerLibrariesComeFromTheLoadedCuptisFolder) {
  const CuptiLoad& l = cupti_load();
  if (!l.ok()) GTEST_SKIP() << "no libcupti.so.13 on this machine";
  const std::string dir = parent_dir(l.path);
  if (!path_exists(join_path(dir, "libnvperf_host.so"))) GTEST_SKIP() << "no libnvperf_host.so beside " << l.path;
  ASSERT_FALSE(l.companions.empty());
  EXPECT_EQ(l.companions[0], join_path(dir, "libnvperf_host.so"));  // loaded from there, not found as "already loaded"
  void* h = dlopen("libnvperf_host.so", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(h, nullptr) << "libnvperf_host.so is not in the process";
  Dl_info info{};
  ASSERT_NE(dladdr(dlsym(h, "NVPW_InitializeHost"), &info), 0);
  EXPECT_EQ(parent_dir(info.dli_fname), dir);
}
