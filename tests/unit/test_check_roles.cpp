// What a buffer listed as an output turns out to be when its pre-call contents are already the
// answer: a Python setup() allocates outputs uninitialised (torch.empty), and torch's
// caching allocator can hand it the block that held an earlier reference result of the same seed.
// The host side of run_check, step by step: the reference's changes against the pre-call contents
// (reference_changes), those of its second call into a sentinel-filled copy
// (add_sentinel_reference_changes), then the buffer's verdict (compare_buffer). Without the second
// call a TF32 GEMM's real output C reads as "the reference leaves 'C' unchanged (an input?)", and
// a kernel that wrote nothing into such a buffer would pass as "input: unchanged".
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

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

/// `n` float32 sentinels: what a buffer holds after kprof's sentinel fill and no write.
HostArray sentinels(const std::string& name, size_t n) {
  HostArray a = f32(name, std::vector<float>(n, 0.0f));
  const uint64_t bits = sentinel_bits(DType::F32);
  for (size_t i = 0; i < n; ++i) std::memcpy(a.bytes.data() + 4 * i, &bits, 4);
  return a;
}

/// A GEMM-like answer: values of magnitude ~64, none repeated.
std::vector<float> answer(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = 64.0f * static_cast<float>((i * 37) % 101) / 101.0f - 31.5f;
  return v;
}

/// The reference's changes the way run_check now finds them: against the pre-call contents, then
/// against the sentinel when the first call changed less than every element.
size_t reference_changes_both(const HostArray& pre, const HostArray& expected, const HostArray& again,
                              std::vector<uint8_t>& flags) {
  size_t n = 0;
  flags = reference_changes(pre, expected, &n);
  if (n < pre.count) n = add_sentinel_reference_changes(flags, pre.dtype, again);
  return n;
}

const Tolerance kLoose{1e-2, 1e-3, "--atol 1e-2"};

}  // namespace

TEST(CheckRoles, AnOutputWhosePreCallContentsAreTheAnswerIsStillAnOutput) {
  const size_t n = 1000;
  const std::vector<float> c = answer(n);
  std::vector<float> tf32 = c;  // TF32 products: ~0.02 RMS, some elements well past atol 1e-2
  for (size_t i = 0; i < n; ++i) tf32[i] += (i % 3 == 0 ? 0.05f : -0.004f);
  HostArray pre = f32("C", c), expected = f32("C", c), post = f32("C", tf32);
  HostArray sentinel_out = f32("C", tf32);  // the kernel writes every element: the same values
  size_t first = 0;
  reference_changes(pre, expected, &first);
  ASSERT_EQ(first, 0u) << "the scenario: the first comparison alone sees no change";

  std::vector<uint8_t> flags;
  size_t changes = reference_changes_both(pre, expected, /*again=*/expected, flags);
  EXPECT_EQ(changes, n);
  OutputComparison cmp = compare_buffer(pre, post, expected, sentinel_out, flags, changes, true, kLoose);
  EXPECT_EQ(cmp.role, BufferRole::Output);
  EXPECT_FALSE(cmp.pass);  // the TF32 errors still fail, for what they are
  EXPECT_EQ(cmp.reason.find("leaves 'C' unchanged"), std::string::npos) << cmp.reason;
  EXPECT_NE(cmp.reason.find("outside atol"), std::string::npos) << cmp.reason;
  EXPECT_EQ(cmp.never_written, 0u);
}

TEST(CheckRoles, AKernelThatWritesNothingIntoTheStaleAnswerIsNeverWritten) {
  const size_t n = 256;
  const std::vector<float> c = answer(n);
  HostArray pre = f32("C", c), expected = f32("C", c), post = f32("C", c);
  std::vector<uint8_t> flags;
  size_t changes = reference_changes_both(pre, expected, expected, flags);
  OutputComparison cmp = compare_buffer(pre, post, expected, sentinels("C", n), flags, changes, false, kLoose);
  EXPECT_EQ(cmp.role, BufferRole::Output);  // was UnchangedInput: a PASS for a kernel that did nothing
  EXPECT_FALSE(cmp.pass);
  EXPECT_EQ(cmp.never_written, n);
}

TEST(CheckRoles, ABufferTheReferenceLeavesInBothCallsStaysAnInput) {
  const size_t n = 64;
  const std::vector<float> a = answer(n);
  HostArray pre = f32("A", a), expected = f32("A", a);
  std::vector<uint8_t> flags;
  size_t changes = reference_changes_both(pre, expected, sentinels("A", n), flags);
  EXPECT_EQ(changes, 0u);
  OutputComparison untouched = compare_buffer(pre, pre, expected, HostArray{}, flags, changes, false, kLoose);
  EXPECT_EQ(untouched.role, BufferRole::UnchangedInput);
  EXPECT_TRUE(untouched.pass);

  std::vector<float> written = a;
  written[5] += 1.0f;
  OutputComparison hit =
      compare_buffer(pre, f32("A", written), expected, f32("A", written), flags, changes, true, kLoose);
  EXPECT_EQ(hit.role, BufferRole::WrittenInput);
  EXPECT_FALSE(hit.pass);
  EXPECT_NE(hit.reason.find("the reference leaves 'A' unchanged (an input?)"), std::string::npos) << hit.reason;
}

TEST(CheckRoles, AnInPlaceReferenceKeepsTheElementsItLeavesAlone) {
  // The reference updates the first half in place and leaves the second half in both calls.
  const size_t n = 100;
  std::vector<float> pre_v = answer(n), ref_v = pre_v;
  for (size_t i = 0; i < n / 2; ++i) ref_v[i] = 2.0f * ref_v[i] + 1.0f;
  ref_v[3] = pre_v[3];  // one updated element happens to keep its value in the first call
  HostArray again = sentinels("X", n);
  for (size_t i = 0; i < n / 2; ++i) std::memcpy(again.bytes.data() + 4 * i, &ref_v[i], 4);
  std::vector<uint8_t> flags;
  size_t changes = reference_changes_both(f32("X", pre_v), f32("X", ref_v), again, flags);
  EXPECT_EQ(changes, n / 2);
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(flags[i], i < n / 2 ? 1 : 0) << i;
}

TEST(CheckRoles, TheSecondCallMustGiveEveryElement) {
  std::vector<uint8_t> flags(4, 0);
  EXPECT_THROW(add_sentinel_reference_changes(flags, DType::F32, f32("C", {1.0f, 2.0f})), Error);
}
