// The comparison of kernel and reference outputs: tolerance rule, NaN/Inf, never-written
// detection, the atol warning, const-input modification.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/error.hpp"
#include "stages/verify/compare.hpp"

using namespace kprof;

namespace {

HostArray f32(const std::string& name, const std::vector<float>& v) {
  HostArray a;
  a.name = name;
  a.dtype = DType::F32;
  a.count = v.size();
  a.bytes.resize(v.size() * 4);
  std::memcpy(a.bytes.data(), v.data(), a.bytes.size());
  return a;
}

}  // namespace

TEST(Compare, PassesWithinTolerance) {
  auto k = f32("C", {1.0f, 2.0f, 3.0005f});
  auto r = f32("C", {1.0f, 2.0f, 3.0f});
  auto c = compare_output(k, r, {1e-4, 1e-3, "test"});
  EXPECT_TRUE(c.pass);
  EXPECT_EQ(c.mismatches, 0u);
  EXPECT_NEAR(c.max_abs, 0.0005, 1e-6);
  EXPECT_EQ(c.max_abs_index, 2u);
  EXPECT_EQ(c.kernel_preview.size(), 3u);
}

TEST(Compare, FailsOutsideToleranceAndListsMismatches) {
  auto k = f32("C", {1.0f, 2.5f, 3.0f, -4.0f});
  auto r = f32("C", {1.0f, 2.0f, 3.0f, 4.0f});
  auto c = compare_output(k, r, {1e-4, 1e-3, "test"});
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.mismatches, 2u);
  ASSERT_EQ(c.first_mismatches.size(), 2u);
  EXPECT_EQ(c.first_mismatches[0].index, 1u);
  EXPECT_EQ(c.first_mismatches[1].index, 3u);
  EXPECT_DOUBLE_EQ(c.max_abs, 8.0);
  EXPECT_NE(c.reason.find("outside atol"), std::string::npos);
}

TEST(Compare, NaNInKernelOutputAlwaysFails) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  auto k = f32("C", {nan, 1.0f});
  auto r = f32("C", {0.0f, 1.0f});
  auto c = compare_output(k, r, {1e30, 1.0, "huge"});
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.nonfinite, 1u);
  EXPECT_NE(c.reason.find("NaN/Inf"), std::string::npos);
}

TEST(Compare, InfMatchesOnlyTheSameInfinity) {
  float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(element_matches(inf, inf, {0, 0, ""}));
  EXPECT_FALSE(element_matches(-inf, inf, {0, 0, ""}));
  EXPECT_FALSE(element_matches(inf, 1.0, {1e30, 0, ""}));
  EXPECT_TRUE(element_matches(std::nan(""), std::nan(""), {0, 0, ""}));
}

TEST(Compare, WarnsWhenAtolDwarfsTheReference) {
  auto k = f32("C", {0.0f, 0.0f});
  auto r = f32("C", {1e-6f, -2e-6f});
  auto c = compare_output(k, r, {1e-4, 1e-3, "test"});
  EXPECT_TRUE(c.pass);                   // the trap: a zero output passes...
  EXPECT_TRUE(c.atol_dwarfs_reference);  // ...so kprof warns
  auto c2 = compare_output(f32("C", {1.0f}), f32("C", {1.0f}), {1e-4, 1e-3, "t"});
  EXPECT_FALSE(c2.atol_dwarfs_reference);
}

TEST(Compare, NeverWrittenElementsFailEvenWhenClose) {
  // Element 1 kept its pre-call value in the random run and the sentinel in the sentinel run.
  uint64_t s = sentinel_bits(DType::F32);
  float sentinel;
  uint32_t s32 = static_cast<uint32_t>(s);
  std::memcpy(&sentinel, &s32, 4);
  auto before = f32("C", {0.5f, 1e-6f, 0.25f});
  auto after = f32("C", {1.0f, 1e-6f, 2.0f});
  auto sent = f32("C", {1.0f, sentinel, 2.0f});
  auto flags = find_never_written(before, after, sent, s);
  ASSERT_EQ(flags.size(), 3u);
  EXPECT_EQ(flags[0], 0);
  EXPECT_EQ(flags[1], 1);
  EXPECT_EQ(flags[2], 0);
  auto ref = f32("C", {1.0f, 0.0f, 2.0f});  // reference tiny: value-wise element 1 would pass
  auto c = compare_output(after, ref, {1e-4, 1e-3, "t"}, flags);
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.never_written, 1u);
  ASSERT_EQ(c.first_never_written.size(), 1u);
  EXPECT_EQ(c.first_never_written[0], 1u);
  EXPECT_NE(c.reason.find("never written"), std::string::npos);
}

TEST(Compare, InPlaceElementLeftUnchangedIsNotNeverWrittenWhenSentinelChanged) {
  // An in-place kernel may legitimately leave a value as it was (relu of a positive input);
  // with the sentinel (negative) it writes, so it is not flagged.
  uint64_t s = sentinel_bits(DType::F32);
  auto before = f32("x", {0.5f});
  auto after = f32("x", {0.5f});
  auto sent = f32("x", {0.0f});
  auto flags = find_never_written(before, after, sent, s);
  EXPECT_EQ(flags[0], 0);
}

TEST(Compare, SentinelsAreNegativeAndFinite) {
  for (DType t : {DType::F32, DType::F64, DType::F16, DType::BF16}) {
    uint64_t bits = sentinel_bits(t);
    double v = dtype_load(&bits, 0, t);
    EXPECT_TRUE(std::isfinite(v)) << dtype_name(t);
    EXPECT_LT(v, -1e4) << dtype_name(t);
  }
}

TEST(Compare, CountMismatchIsAnInputError) {
  try {
    compare_output(f32("C", {1, 2}), f32("C", {1}), {0, 0, ""});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Usage);
  }
}

TEST(Compare, ModifiedInputIsCounted) {
  std::vector<size_t> first;
  EXPECT_EQ(count_modified(f32("A", {1, 2, 3}), f32("A", {1, 0, 3}), &first), 1u);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0], 1u);
}

TEST(Compare, DefaultTolerancesAreLooserForHalfTypes) {
  EXPECT_DOUBLE_EQ(default_tolerance(DType::F32).atol, 1e-4);
  EXPECT_DOUBLE_EQ(default_tolerance(DType::F32).rtol, 1e-3);
  EXPECT_GT(default_tolerance(DType::F16).rtol, default_tolerance(DType::F32).rtol);
  EXPECT_GT(default_tolerance(DType::BF16).rtol, default_tolerance(DType::F16).rtol);
  EXPECT_EQ(default_tolerance(DType::I32).atol, 0.0);
}

TEST(Compare, NeverWrittenCountsOnlyWhereTheReferenceChangedTheValue) {
  // A kernel that updates part of an in-place buffer: elements the reference also leaves as they
  // were are correct when left alone; the one the reference changes is never written.
  uint64_t s = sentinel_bits(DType::F32);
  float sentinel;
  uint32_t s32 = static_cast<uint32_t>(s);
  std::memcpy(&sentinel, &s32, 4);
  auto before = f32("x", {0.5f, 0.25f, 0.125f});
  auto after = f32("x", {0.5f, 0.25f, 0.125f});
  auto sent = f32("x", {sentinel, sentinel, sentinel});
  auto ref = f32("x", {0.5f, 0.75f, 0.125f});
  size_t changed = 0;
  auto mask = reference_changes(before, ref, &changed);
  EXPECT_EQ(changed, 1u);
  EXPECT_EQ(mask, (std::vector<uint8_t>{0, 1, 0}));
  auto flags = find_never_written(before, after, sent, s, mask);
  EXPECT_EQ(flags, (std::vector<uint8_t>{0, 1, 0}));
  auto all = find_never_written(before, after, sent, s);
  EXPECT_EQ(all, (std::vector<uint8_t>{1, 1, 1}));
  auto c = compare_output(after, ref, {1e-4, 1e-3, "t"}, flags);
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.never_written, 1u);
  EXPECT_EQ(c.mismatches, 1u);
}

TEST(Compare, ReferenceChangesComparesValuesAcrossDtypes) {
  auto before = f32("x", {1.5f, -2.0f, std::nanf(""), 3.0f});
  HostArray ref;
  ref.name = "x";
  ref.dtype = DType::F64;
  ref.count = 4;
  std::vector<double> r = {1.5, -2.0, std::nan(""), 3.0000001};
  ref.bytes.resize(32);
  std::memcpy(ref.bytes.data(), r.data(), 32);
  size_t changed = 0;
  auto mask = reference_changes(before, ref, &changed);
  EXPECT_EQ(changed, 1u);  // NaN == NaN; only the last value moved
  EXPECT_EQ(mask, (std::vector<uint8_t>{0, 0, 0, 1}));
  EXPECT_THROW(reference_changes(before, f32("x", {1.0f}), &changed), Error);
}

TEST(Compare, ErrorStatisticsAndTheSmallestAcceptingAtol) {
  auto k = f32("C", {1.0f, 2.5f, -3.0f, 10.0f});
  auto r = f32("C", {1.0f, 2.0f, -2.0f, 10.0f});
  auto c = compare_output(k, r, {1e-4, 0.1, "t"});
  EXPECT_EQ(c.nonzero_errors, 2u);
  EXPECT_NEAR(c.rms_error, std::sqrt((0.25 + 1.0) / 4), 1e-12);
  EXPECT_NEAR(c.ref_rms, std::sqrt((1.0 + 4.0 + 4.0 + 100.0) / 4), 1e-12);
  // |delta| - rtol*|ref|: 0.5 - 0.2 = 0.3 and 1.0 - 0.2 = 0.8 -> 0.8 accepts everything.
  EXPECT_NEAR(c.min_atol_at_rtol, 0.8, 1e-12);
  EXPECT_TRUE(compare_output(k, r, {c.min_atol_at_rtol + 1e-9, 0.1, "t"}).pass);
  EXPECT_FALSE(compare_output(k, r, {c.min_atol_at_rtol - 1e-3, 0.1, "t"}).pass);
}
