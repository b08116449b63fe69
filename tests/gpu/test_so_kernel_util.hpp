// GPU test helper: compiles a kernel from tests/data/kernels/ with nvcc for this GPU's sm_XX,
// once per test process, and returns the .cu (copied next to its .so) for load_so_kernel.
#pragma once

#include <map>
#include <string>

#include "device/cuda.hpp"
#include "core/fs.hpp"
#include "unit/test_ffi_util.hpp"

namespace kprof_test {

/// nvcc from the toolkit kprof was built with, else from PATH; "" when absent.
inline std::string nvcc_path() {
#ifdef KPROF_CUDA_BIN_DIR
  std::string p = kprof::join_path(KPROF_CUDA_BIN_DIR, "nvcc");
  if (kprof::path_exists(p)) return p;
#endif
  return kprof::find_on_path("nvcc");
}

/// Builds tests/data/kernels/<name>.cu into a per-process temporary folder as <name>.so (with
/// the .cu copied beside it) and returns the .cu path there; "" after recording a failure.
/// Call after KPROF_REQUIRE_GPU() and select_gpu(0).
inline std::string built_test_kernel(const std::string& name) {
  static TempDir dir;
  static std::map<std::string, std::string> built;
  auto it = built.find(name);
  if (it != built.end()) return it->second;
  std::string nvcc = nvcc_path();
  if (nvcc.empty()) {
    ADD_FAILURE() << "nvcc not found (KPROF_CUDA_BIN_DIR or PATH): GPU tests build their kernels with it";
    return "";
  }
  std::string source = kprof::read_file(kprof::join_path(KPROF_TEST_DATA, "kernels/" + name + ".cu"));
  int dev = 0;
  cudaGetDevice(&dev);
  std::string so = build_shared_library(dir, name, source, nvcc, "cu", {"-O2", "-arch=" + kprof::gpu_arch(dev)});
  if (so.empty()) return "";
  std::string cu = dir.file(name + ".cu");
  built[name] = cu;
  return cu;
}

}  // namespace kprof_test
