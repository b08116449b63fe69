// Device buffers on the GPU: seeded fills (deterministic, size-independent, matching the host
// generator), pattern fills, guard zones and the memory check.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include "device/device_buffers.hpp"
#include "device/fill.hpp"
#include "device/fill_hash.hpp"
#include "device/guard.hpp"
#include "device/host_array.hpp"
#include "device/cuda.hpp"
#include "core/error.hpp"
#include "gpu_guard.hpp"

using namespace kprof;

namespace {

BufferPlan typed_plan(size_t n) {
  const DType types[] = {DType::F32, DType::F16, DType::BF16, DType::F64, DType::I32, DType::U8, DType::I64};
  BufferPlan p;
  for (size_t i = 0; i < std::size(types); ++i)
    p.buffers.push_back(BufferSpec{"b" + std::to_string(i), "", types[i], n, i % 2 == 0, i, "test"});
  return p;
}

std::vector<HostArray> fetch_all(const DeviceBuffers& d) {
  std::vector<HostArray> out;
  for (const auto& v : d.views()) out.push_back(copy_to_host(v.name, v.dtype, v.count, v.ptr));
  return out;
}

}  // namespace

TEST(DeviceBuffersGpu, SeededFillsAreDeterministicAndSizeIndependent) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  DeviceBuffers small(typed_plan(1000), 0), large(typed_plan(300000), 0);
  small.fill_seeded(3);
  large.fill_seeded(3);
  auto s = fetch_all(small), l = fetch_all(large);
  for (size_t i = 0; i < s.size(); ++i) {
    ASSERT_EQ(std::memcmp(s[i].bytes.data(), l[i].bytes.data(), s[i].bytes.size()), 0)
        << s[i].name << ": the first 1000 elements must not depend on the buffer size";
  }
  small.fill_seeded(3);
  auto again = fetch_all(small);
  for (size_t i = 0; i < s.size(); ++i) EXPECT_EQ(again[i].bytes, s[i].bytes) << s[i].name;
  small.fill_seeded(4);
  auto other = fetch_all(small);
  for (size_t i = 0; i < s.size(); ++i) EXPECT_NE(other[i].bytes, s[i].bytes) << s[i].name;
}

TEST(DeviceBuffersGpu, SeededFillsMatchTheHostGenerator) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  DeviceBuffers d(typed_plan(4096), 0);
  d.fill_seeded(11);
  auto h = fetch_all(d);
  for (uint64_t i = 0; i < 4096; ++i) {
    // Device and host libm may differ by an ulp or two; half types then round that value
    // (relative spacing 2^-10 for float16, 2^-7 for bfloat16).
    ASSERT_NEAR(h[0].at(i), fill_normal_f32(11, 0, i), 1e-5) << "float32 element " << i;
    double f16 = fill_normal_f32(11, 1, i), bf16 = fill_normal_f32(11, 2, i);
    ASSERT_NEAR(h[1].at(i), f16, 1e-3 * std::fabs(f16) + 1e-6) << "float16 element " << i;
    ASSERT_NEAR(h[2].at(i), bf16, 8e-3 * std::fabs(bf16) + 1e-6) << "bfloat16 element " << i;
    ASSERT_NEAR(h[3].at(i), fill_normal_f64(11, 3, i), 1e-12) << "float64 element " << i;
    ASSERT_EQ(h[4].at(i), fill_int(11, 4, i)) << "int32 element " << i;
    ASSERT_EQ(h[5].at(i), fill_int(11, 5, i)) << "uint8 element " << i;
    ASSERT_EQ(h[6].at(i), fill_int(11, 6, i)) << "int64 element " << i;
  }
}

TEST(DeviceBuffersGpu, FloatFillIsStandardNormal) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  BufferPlan p;
  p.buffers.push_back(BufferSpec{"x", "float*", DType::F32, size_t{1} << 20, true, 0, "test"});
  DeviceBuffers d(p, 0);
  d.fill_seeded(5);
  HostArray x = copy_to_host("x", DType::F32, p.buffers[0].count, d.data(0));
  double sum = 0, sq = 0;
  for (size_t i = 0; i < x.count; ++i) {
    double v = x.at(i);
    ASSERT_TRUE(std::isfinite(v));
    sum += v;
    sq += v * v;
  }
  double mean = sum / x.count;
  EXPECT_NEAR(mean, 0.0, 0.005);
  EXPECT_NEAR(sq / x.count - mean * mean, 1.0, 0.01);
}

TEST(DeviceBuffersGpu, PatternFillWritesExactBits) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  DeviceBuffers d(typed_plan(777), 0);
  const uint64_t bits[] = {0x7FC00001, 0x7E01, 0x7FC1, 0x7FF8000000000001ull, 0xDEADBEEF, 0xAB, 0x0123456789ABCDEFull};
  auto views = d.views();
  for (size_t i = 0; i < views.size(); ++i) fill_pattern(views[i].ptr, views[i].dtype, views[i].count, bits[i]);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  auto h = fetch_all(d);
  for (size_t i = 0; i < h.size(); ++i)
    for (size_t e = 0; e < h[i].count; ++e) ASSERT_EQ(h[i].bits(e), bits[i]) << h[i].name << "[" << e << "]";
  EXPECT_TRUE(d.check_guards().empty()) << "the fill stays inside the buffer";
}

TEST(DeviceBuffersGpu, GuardsReportWritesOutsideEachBuffer) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  DeviceBuffers d(typed_plan(100), 0);
  EXPECT_TRUE(d.check_guards().empty());
  // One float past the end of b0 (100 floats), two bytes before the start of b3; the bytes
  // written are the complement of the pattern, so every one of them counts.
  uint8_t past[4], before[2];
  for (size_t k = 0; k < 4; ++k) past[k] = static_cast<uint8_t>(~guard_byte(k, true));
  for (size_t k = 0; k < 2; ++k) before[k] = static_cast<uint8_t>(~guard_byte(kGuardBytes - 2 + k, false));
  ASSERT_EQ(cudaMemcpy(static_cast<char*>(d.data(0)) + 400, past, 4, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(static_cast<char*>(d.data(3)) - 2, before, 2, cudaMemcpyHostToDevice), cudaSuccess);
  auto v = d.check_guards();
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].buffer, "b0");
  EXPECT_FALSE(v[0].before);
  EXPECT_EQ(v[0].first_offset, 400u);
  EXPECT_EQ(v[0].bytes_changed, 4u);
  EXPECT_EQ(v[1].buffer, "b3");
  EXPECT_TRUE(v[1].before);
  EXPECT_EQ(v[1].first_offset, 1u);
  EXPECT_EQ(v[1].bytes_changed, 2u);
  d.arm_guards();
  EXPECT_TRUE(d.check_guards().empty());
}

TEST(DeviceBuffersGpu, EmptyBufferStillHasGuards) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  BufferPlan p;
  p.buffers.push_back(BufferSpec{"e", "float*", DType::F32, 0, true, 0, "test"});
  DeviceBuffers d(p, 0);
  ASSERT_NE(d.data(0), nullptr);
  d.fill_seeded(1);
  EXPECT_TRUE(d.check_guards().empty());
  uint8_t bad = static_cast<uint8_t>(~guard_byte(0, true));
  ASSERT_EQ(cudaMemcpy(d.data(0), &bad, 1, cudaMemcpyHostToDevice), cudaSuccess);
  auto v = d.check_guards();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_FALSE(v[0].before);
  EXPECT_EQ(v[0].first_offset, 0u);
  EXPECT_EQ(v[0].bytes_changed, 1u);
}

TEST(DeviceBuffersGpu, TooLargeFailsWithNothingAllocated) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  BufferPlan p = typed_plan(1024);
  p.buffers[3].count = size_t{1} << 40;  // float64: 8 TiB
  size_t before = 0, after = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&before, &total), cudaSuccess);
  try {
    DeviceBuffers d(p, 2.0);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Failed);
    EXPECT_NE(std::string(e.what()).find("largest buffer is 'b3'"), std::string::npos) << e.what();
  }
  ASSERT_EQ(cudaMemGetInfo(&after, &total), cudaSuccess);
  EXPECT_LT(std::llabs(static_cast<long long>(before) - static_cast<long long>(after)), 64ll << 20);
}
