// SoKernel on the GPU: real .so kernels built with nvcc at test time, called through libffi on
// kprof's guarded, seeded buffers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "device/host_array.hpp"
#include "device/cuda.hpp"
#include "core/error.hpp"
#include "gpu/test_so_kernel_util.hpp"
#include "gpu_guard.hpp"
#include "kernel/library.hpp"
#include "kernel/so_kernel.hpp"

using namespace kprof;

namespace {

SoKernelOptions options_for(const std::string& cu, const std::vector<std::pair<std::string, std::string>>& dims) {
  SoKernelOptions o;
  o.kernel_path = cu;
  for (const auto& [k, v] : dims) o.dims.set(k, v);
  return o;
}

HostArray fetch(const BufferView& v) { return copy_to_host(v.name, v.dtype, v.count, v.ptr); }

/// Calls the kernel and waits for it, failing the test on a launch or execution error.
void call_and_sync(KernelInstance& k) {
  k.call();
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

}  // namespace

TEST(SoKernelGpu, VectorAddComputesAndKeepsGuardsIntact) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  std::string cu = kprof_test::built_test_kernel("vadd");
  ASSERT_FALSE(cu.empty());
  std::unique_ptr<KernelInstance> k = load_so_kernel(options_for(cu, {{"N", "1000"}}));  // not a multiple of 256
  EXPECT_EQ(k->signature(), "solve(const float* A, const float* B, float* C, int N)");
  EXPECT_TRUE(k->has_guards());
  EXPECT_EQ(k->implementation(), Implementation::CudaCpp);
  k->prepare(1);
  auto views = k->buffers();
  ASSERT_EQ(views.size(), 3u);
  EXPECT_EQ(views[0].count, 1000u);
  EXPECT_FALSE(views[0].is_output);
  EXPECT_TRUE(views[2].is_output);
  HostArray a = fetch(views[0]), b = fetch(views[1]), c_before = fetch(views[2]);
  call_and_sync(*k);
  HostArray c = fetch(views[2]);
  size_t changed = 0;
  for (size_t i = 0; i < 1000; ++i) {
    ASSERT_EQ(c.at(i), static_cast<float>(a.at(i)) + static_cast<float>(b.at(i))) << i;
    changed += c.bits(i) != c_before.bits(i);
  }
  EXPECT_GT(changed, 990u);  // the output was seeded random, not already the answer
  EXPECT_TRUE(k->check_guards().empty());
  ASSERT_EQ(k->scalars().size(), 1u);
  EXPECT_EQ(k->scalars()[0].name, "N");
  EXPECT_EQ(k->scalars()[0].value, 1000);
}

TEST(SoKernelGpu, PrepareIsDeterministicPerSeedAndReusesBuffers) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  std::string cu = kprof_test::built_test_kernel("vadd");
  ASSERT_FALSE(cu.empty());
  auto k = load_so_kernel(options_for(cu, {{"N", "4099"}}));
  k->prepare(7);
  auto v1 = k->buffers();
  std::vector<HostArray> first;
  for (const auto& v : v1) first.push_back(fetch(v));
  call_and_sync(*k);  // changes C
  k->prepare(7);
  auto v2 = k->buffers();
  for (size_t i = 0; i < v1.size(); ++i) {
    EXPECT_EQ(v2[i].ptr, v1[i].ptr) << "same sizes: allocations are reused";
    EXPECT_EQ(fetch(v2[i]).bytes, first[i].bytes) << v2[i].name << ": same seed, same bytes (outputs refilled)";
  }
  EXPECT_NE(first[0].bytes, first[1].bytes) << "buffers of one seed differ from each other";
  k->prepare(8);
  for (size_t i = 0; i < v1.size(); ++i) EXPECT_NE(fetch(k->buffers()[i]).bytes, first[i].bytes) << v1[i].name;
}

TEST(SoKernelGpu, GuardCatchesAWriteOnePastTheEnd) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  std::string cu = kprof_test::built_test_kernel("out_of_bounds");
  ASSERT_FALSE(cu.empty());
  auto k = load_so_kernel(options_for(cu, {{"N", "1000"}, {"mode", "0"}}));
  k->prepare(1);
  call_and_sync(*k);
  auto v = k->check_guards();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].buffer, "y");
  EXPECT_FALSE(v[0].before);
  EXPECT_GE(v[0].first_offset, 1000u * 4u);
  EXPECT_LT(v[0].first_offset, 1000u * 4u + 4u);
  EXPECT_GE(v[0].bytes_changed, 1u);
  EXPECT_LE(v[0].bytes_changed, 4u);
  k->reset_guards();
  EXPECT_TRUE(k->check_guards().empty());
}

TEST(SoKernelGpu, GuardCatchesAWriteBeforeTheStart) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  std::string cu = kprof_test::built_test_kernel("out_of_bounds");
  ASSERT_FALSE(cu.empty());
  auto k = load_so_kernel(options_for(cu, {{"N", "333"}, {"mode", "1"}}));
  k->prepare(1);
  call_and_sync(*k);
  auto v = k->check_guards();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].buffer, "y");
  EXPECT_TRUE(v[0].before);
  EXPECT_GE(v[0].first_offset, 1u);
  EXPECT_LE(v[0].first_offset, 4u);
}

TEST(SoKernelGpu, CorrectKernelHasNoViolation) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  std::string cu = kprof_test::built_test_kernel("out_of_bounds");
  ASSERT_FALSE(cu.empty());
  auto k = load_so_kernel(options_for(cu, {{"N", "333"}, {"mode", "2"}}));
  k->prepare(1);
  call_and_sync(*k);
  EXPECT_TRUE(k->check_guards().empty());
}

TEST(SoKernelGpu, MixedTypesAndAFloatScalarArriveIntact) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  std::string cu = kprof_test::built_test_kernel("mixed_types");
  ASSERT_FALSE(cu.empty());
  auto k = load_so_kernel(options_for(cu, {{"alpha", "0.75"}, {"n", "5000"}}));
  k->prepare(3);
  auto v = k->buffers();
  ASSERT_EQ(v.size(), 5u);
  EXPECT_EQ(v[0].dtype, DType::F16);
  EXPECT_EQ(v[1].dtype, DType::BF16);
  EXPECT_EQ(v[2].dtype, DType::F64);
  EXPECT_EQ(v[3].dtype, DType::I32);
  HostArray h = fetch(v[0]), b = fetch(v[1]), d = fetch(v[2]), in = fetch(v[3]);
  call_and_sync(*k);
  HostArray out = fetch(v[4]);
  for (size_t i = 0; i < 5000; ++i) {
    float s = static_cast<float>(h.at(i)) + static_cast<float>(b.at(i));
    s += static_cast<float>(d.at(i));
    s += static_cast<float>(in.at(i));
    float want = 0.75f * s;
    ASSERT_NEAR(out.at(i), want, 1e-6 * (1 + std::fabs(want))) << i;
  }
  EXPECT_TRUE(k->check_guards().empty());
}

TEST(SoKernelGpu, BuffersThatDoNotFitFailBeforeAllocating) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  std::string cu = kprof_test::built_test_kernel("vadd");
  ASSERT_FALSE(cu.empty());
  auto opts = options_for(cu, {{"N", "1024"}});
  opts.size_exprs = {"C=1024*1024*1024*256"};  // 2^38 floats = 1 TiB
  auto k = load_so_kernel(opts);
  size_t free_before = 0, free_after = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_before, &total), cudaSuccess);
  try {
    k->prepare(1);
    FAIL() << "expected an out-of-memory error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Failed);
    EXPECT_NE(std::string(e.what()).find("largest buffer is 'C'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("274877906944 elements"), std::string::npos) << e.what();
  }
  ASSERT_EQ(cudaMemGetInfo(&free_after, &total), cudaSuccess);
  EXPECT_LT(std::llabs(static_cast<long long>(free_before) - static_cast<long long>(free_after)), 64ll << 20);
  EXPECT_TRUE(k->buffers().empty());
}

TEST(SoKernelGpu, MissingLibraryHintUsesThisGpusArch) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  kprof_test::TempDir dir;
  std::string cu = dir.file("lonely.cu");
  write_file_atomic(cu, "extern \"C\" void solve(float* y, int N) {}\n");
  try {
    load_so_kernel(options_for(cu, {{"N", "4"}}));
    FAIL() << "expected a usage error";
  } catch (const Error& e) {
    EXPECT_NE(e.hint().find("-arch=" + gpu_arch(0)), std::string::npos) << e.hint();
  }
}
