// Guard zones, the memory check and the fill generator: the host-side logic of src/buffers.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "device/device_buffers.hpp"
#include "device/fill_hash.hpp"
#include "device/guard.hpp"
#include "core/error.hpp"
#include "kernel/signature.hpp"

using namespace kprof;

TEST(Guard, PatternIsDeterministicAndDiffersBetweenZones) {
  auto front = guard_pattern(false), back = guard_pattern(true);
  ASSERT_EQ(front.size(), kGuardBytes);
  EXPECT_EQ(front, guard_pattern(false));
  EXPECT_NE(front, back);
  std::set<uint8_t> distinct(front.begin(), front.end());
  EXPECT_GT(distinct.size(), 200u);  // not a memset value
  EXPECT_EQ(kGuardBytes % 256, 0u);  // keeps the payload 256-byte aligned
}

TEST(Guard, IntactZoneHasNoViolation) {
  EXPECT_FALSE(scan_guard("A", 4096, true, guard_pattern(true)).has_value());
  EXPECT_FALSE(scan_guard("A", 4096, false, guard_pattern(false)).has_value());
  // The other zone's pattern is not accepted.
  EXPECT_TRUE(scan_guard("A", 4096, true, guard_pattern(false)).has_value());
}

TEST(Guard, WriteOneElementPastTheEnd) {
  auto zone = guard_pattern(true);
  for (int i = 0; i < 4; ++i) zone[i] = static_cast<uint8_t>(~zone[i]);  // a float written at index N
  auto v = scan_guard("C", 4000, true, zone);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->buffer, "C");
  EXPECT_FALSE(v->before);
  EXPECT_EQ(v->first_offset, 4000u);
  EXPECT_EQ(v->bytes_changed, 4u);
  EXPECT_NE(describe_violation(*v).find("C: 4 bytes written past the end"), std::string::npos);
}

TEST(Guard, WriteBeforeTheStart) {
  auto zone = guard_pattern(false);
  zone[kGuardBytes - 8] ^= 0xFF;  // 8 bytes before the buffer (index -2 of a float array)
  zone[100] ^= 0x01;
  auto v = scan_guard("A", 64, false, zone);
  ASSERT_TRUE(v.has_value());
  EXPECT_TRUE(v->before);
  EXPECT_EQ(v->first_offset, 8u);
  EXPECT_EQ(v->bytes_changed, 2u);
  EXPECT_NE(describe_violation(*v).find("before the start"), std::string::npos);
}

namespace {
BufferPlan plan_of(size_t count_a, size_t count_c) {
  BufferPlan p;
  p.buffers.push_back(BufferSpec{"A", "const float*", DType::F32, count_a, false, 0, "test"});
  p.buffers.push_back(BufferSpec{"C", "double*", DType::F64, count_c, true, 1, "--size C=N*N"});
  return p;
}
}  // namespace

TEST(MemoryCheck, NeedAddsGuardsCopiesAndReserve) {
  auto m = memory_need(plan_of(1000, 10), 2.0);
  EXPECT_EQ(m.buffers, 4000u + 80u);
  EXPECT_EQ(m.guards, 4 * kGuardBytes);
  EXPECT_EQ(m.copies, 2 * 4080u);
  EXPECT_EQ(m.total(), 4080u + 4 * kGuardBytes + 8160u + kMemoryReserveBytes);
}

TEST(MemoryCheck, FitsOrNamesTheLargestBuffer) {
  auto plan = plan_of(1000, size_t{1} << 30);  // C: 8 GiB
  auto need = memory_need(plan, 1.0).total();
  EXPECT_NO_THROW(check_fits(plan, 1.0, need));
  try {
    check_fits(plan, 1.0, need - 1);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Failed);
    std::string msg = e.what();
    EXPECT_NE(msg.find("largest buffer is 'C'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("1073741824 elements"), std::string::npos) << msg;
    EXPECT_NE(msg.find("8.00 GiB"), std::string::npos) << msg;
    EXPECT_NE(std::string(e.hint()).find("--size C=EXPR"), std::string::npos) << e.hint();
  }
}

TEST(FillHash, SameInputsSameBitsDifferentInputsDifferentBits) {
  EXPECT_EQ(fill_bits(1, 0, 5), fill_bits(1, 0, 5));
  EXPECT_NE(fill_bits(1, 0, 5), fill_bits(2, 0, 5));
  EXPECT_NE(fill_bits(1, 0, 5), fill_bits(1, 1, 5));
  EXPECT_NE(fill_bits(1, 0, 5), fill_bits(1, 0, 6));
  EXPECT_NE(fill_bits(0, 1, 0), fill_bits(1, 0, 0));
}

TEST(FillHash, NormalSamplesHaveMeanZeroAndUnitVariance) {
  const int n = 200000;
  double sum = 0, sq = 0, max_abs = 0;
  for (int i = 0; i < n; ++i) {
    double v = fill_normal_f32(42, 3, static_cast<uint64_t>(i));
    ASSERT_TRUE(std::isfinite(v));
    sum += v;
    sq += v * v;
    max_abs = std::max(max_abs, std::fabs(v));
  }
  double mean = sum / n, var = sq / n - mean * mean;
  EXPECT_NEAR(mean, 0.0, 0.01);
  EXPECT_NEAR(var, 1.0, 0.02);
  EXPECT_LE(max_abs, 5.78);
  EXPECT_GT(max_abs, 3.5);
  EXPECT_NEAR(fill_normal_f64(42, 3, 7), fill_normal_f32(42, 3, 7), 1e-5);
}

TEST(FillHash, IntegersCoverTheirSmallRange) {
  std::set<uint32_t> seen;
  for (uint64_t i = 0; i < 10000; ++i) {
    uint32_t v = fill_int(7, 0, i);
    ASSERT_LT(v, kFillIntRange);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), kFillIntRange);
}
