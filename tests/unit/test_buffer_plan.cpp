// Buffer plan: the seed's element-count rule, --ptr-size and --size overrides, roles, report
// forms, and the GPU-free parts of loading a .so kernel (scalars, plan).
#include <gtest/gtest.h>

#include "kernel/plan.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "kernel/signature.hpp"
#include "kernel/so_kernel.hpp"
#include "unit/test_ffi_util.hpp"

using namespace kprof;
using kprof_test::usage_error_of;

namespace {

Dims dims_of(const std::vector<std::pair<std::string, std::string>>& kv) {
  Dims d;
  for (const auto& [k, v] : kv) d.set(k, v);
  return d;
}

Signature matmul_sig() {
  return parse_solve_signature(
      "extern \"C\" void solve(const float* A, const float* B, float* C, int M, int N, int K) {}");
}
const Signature kMatmul = matmul_sig();

}  // namespace

TEST(SeedRule, OneDimensionIsItsValue) {
  auto r = seed_element_count({{"N", 1000}});
  EXPECT_EQ(r.count, 1000u);
  EXPECT_FALSE(r.capped);
  EXPECT_EQ(r.why, "N=1000");
}

TEST(SeedRule, SeveralDimensionsTakeTheProductOfTheTwoLargest) {
  auto r = seed_element_count({{"M", 512}, {"N", 64}, {"K", 256}});
  EXPECT_EQ(r.count, 512u * 256u);
  EXPECT_NE(r.why.find("M*K"), std::string::npos) << r.why;
  EXPECT_EQ(seed_element_count({{"N", 3}, {"D", 5}}).count, 15u);
}

TEST(SeedRule, NoDimensionIsOneMi) {
  auto r = seed_element_count({});
  EXPECT_EQ(r.count, size_t{1} << 20);
  EXPECT_EQ(r.count, kDefaultPointerElements);
}

TEST(SeedRule, CappedAtOneGi) {
  auto r = seed_element_count({{"M", 100000}, {"N", 100000}});
  EXPECT_TRUE(r.capped);
  EXPECT_EQ(r.count, kMaxRuleElements);
  EXPECT_NE(r.why.find("capped"), std::string::npos);
  // No overflow with huge values either.
  EXPECT_EQ(seed_element_count({{"M", INT64_MAX}, {"N", INT64_MAX}}).count, kMaxRuleElements);
  EXPECT_FALSE(seed_element_count({{"N", int64_t{1} << 30}}).capped);
}

TEST(SeedRule, NegativeResultIsAnError) {
  std::string e = usage_error_of([] { seed_element_count({{"N", -4}}); });
  EXPECT_NE(e.find("--ptr-size"), std::string::npos) << e;
  EXPECT_EQ(seed_element_count({{"N", 0}}).count, 0u);
}

TEST(BufferPlan, RolesTypesAndRuleCounts) {
  auto plan = make_buffer_plan(kMatmul, dims_of({{"M", "64"}, {"N", "32"}, {"K", "128"}, {"alpha", "0.5"}}), {}, {});
  ASSERT_EQ(plan.buffers.size(), 3u);
  EXPECT_EQ(plan.buffers[0].name, "A");
  EXPECT_FALSE(plan.buffers[0].is_output);
  EXPECT_EQ(plan.buffers[0].role(), "input");
  EXPECT_TRUE(plan.buffers[2].is_output);
  EXPECT_EQ(plan.buffers[2].param_index, 2u);
  for (const auto& b : plan.buffers) {
    EXPECT_EQ(b.count, 64u * 128u) << b.name;  // alpha is not an integer dimension
    EXPECT_EQ(b.bytes(), 64u * 128u * 4u);
    EXPECT_EQ(b.count_source.rfind("rule: ", 0), 0u) << b.count_source;
  }
  EXPECT_EQ(plan.total_bytes(), 3u * 64u * 128u * 4u);
}

TEST(BufferPlan, SizeExpressionsOverridePerBuffer) {
  auto plan =
      make_buffer_plan(kMatmul, dims_of({{"M", "64"}, {"N", "32"}, {"K", "128"}}), {"A=M*K", " B = K*N ", "C=M*N"}, {});
  EXPECT_EQ(plan.buffers[0].count, 64u * 128u);
  EXPECT_EQ(plan.buffers[1].count, 128u * 32u);
  EXPECT_EQ(plan.buffers[2].count, 64u * 32u);
  EXPECT_EQ(plan.buffers[1].count_source, "--size B=K*N");
  EXPECT_EQ(plan.find("C")->count, 64u * 32u);
  EXPECT_EQ(plan.find("N"), nullptr);
  EXPECT_EQ(plan.largest(), 0u);
}

TEST(BufferPlan, PtrSizeOverridesAllButSize) {
  auto plan = make_buffer_plan(kMatmul, dims_of({{"M", "64"}, {"N", "32"}, {"K", "128"}}), {"C=M*N"}, 1000);
  EXPECT_EQ(plan.buffers[0].count, 1000u);
  EXPECT_EQ(plan.buffers[1].count, 1000u);
  EXPECT_EQ(plan.buffers[2].count, 64u * 32u);
  EXPECT_EQ(plan.buffers[0].count_source, "--ptr-size 1000");
}

TEST(BufferPlan, SizeErrors) {
  Dims d = dims_of({{"M", "4"}, {"N", "4"}, {"K", "4"}});
  std::string e = usage_error_of([&] { make_buffer_plan(kMatmul, d, {"X=M*K"}, {}); });
  EXPECT_NE(e.find("no buffer named 'X'"), std::string::npos) << e;
  EXPECT_NE(e.find("A, B, C"), std::string::npos) << e;  // lists the buffers
  e = usage_error_of([&] { make_buffer_plan(kMatmul, d, {"M=16"}, {}); });
  EXPECT_NE(e.find("is a scalar"), std::string::npos) << e;
  e = usage_error_of([&] { make_buffer_plan(kMatmul, d, {"A"}, {}); });
  EXPECT_NE(e.find("NAME=EXPR"), std::string::npos) << e;
  e = usage_error_of([&] { make_buffer_plan(kMatmul, d, {"A=M", "A=K"}, {}); });
  EXPECT_NE(e.find("twice"), std::string::npos) << e;
  e = usage_error_of([&] { make_buffer_plan(kMatmul, d, {"A=M-K-1"}, {}); });
  EXPECT_NE(e.find("negative"), std::string::npos) << e;
  e = usage_error_of([&] { make_buffer_plan(kMatmul, d, {"A=M*Q"}, {}); });
  EXPECT_NE(e.find("'Q'"), std::string::npos) << e;
  e = usage_error_of([&] { make_buffer_plan(kMatmul, d, {}, -1); });
  EXPECT_NE(e.find("--ptr-size"), std::string::npos) << e;
  e = usage_error_of([&] { make_buffer_plan(kMatmul, d, {}, int64_t{1} << 41); });
  EXPECT_NE(e.find("2^40"), std::string::npos) << e;
}

TEST(BufferPlan, ExplicitSizesAreNotCappedByTheRule) {
  auto plan = make_buffer_plan(kMatmul, dims_of({{"M", "4"}, {"N", "4"}, {"K", "4"}}), {}, int64_t{1} << 31);
  EXPECT_EQ(plan.buffers[0].count, size_t{1} << 31);
}

TEST(BufferPlan, ReportForms) {
  auto plan = make_buffer_plan(kMatmul, dims_of({{"M", "8"}, {"N", "8"}, {"K", "8"}}), {"C=M*N"}, {});
  std::string md = plan_markdown(plan);
  EXPECT_NE(md.find("| Buffer | Type | Role | Elements | Bytes | Size from |"), std::string::npos) << md;
  EXPECT_NE(md.find("| C | float* (float32) | output | 64 | 256 B | --size C=M*N |"), std::string::npos) << md;
  auto j = plan_to_json(plan);
  ASSERT_EQ(j.size(), 3u);
  EXPECT_EQ(j[0]["name"], "A");
  EXPECT_EQ(j[0]["c_type"], "const float*");
  EXPECT_EQ(j[0]["dtype"], "float32");
  EXPECT_EQ(j[0]["role"], "input");
  EXPECT_EQ(j[2]["count"], 64);
  EXPECT_EQ(j[2]["bytes"], 256);
}

TEST(PlanSoKernel, ScalarsAndPlanWithoutAGpu) {
  kprof_test::TempDir dir;
  std::string cu = dir.file("saxpy.cu");
  write_file_atomic(cu, "extern \"C\" void solve(const float* x, float* y, float alpha, size_t n) {}\n");
  SoKernelOptions opts;
  opts.kernel_path = cu;
  opts.dims = dims_of({{"alpha", "0.5"}, {"n", "4096"}});
  SoKernelPlan p = plan_so_kernel(opts);
  EXPECT_EQ(p.signature.to_string(), "solve(const float* x, float* y, float alpha, size_t n)");
  ASSERT_EQ(p.scalars.size(), 2u);
  EXPECT_EQ(p.scalars[0].name, "alpha");
  EXPECT_FALSE(p.scalars[0].is_int);
  EXPECT_DOUBLE_EQ(p.scalars[0].value, 0.5);
  EXPECT_TRUE(p.scalars[1].is_int);
  EXPECT_EQ(p.scalars[1].value, 4096);
  EXPECT_EQ(p.buffers.buffers.size(), 2u);
  EXPECT_EQ(p.buffers.buffers[1].count, 4096u);
  EXPECT_EQ(p.so_path, dir.file("saxpy.so"));
}

TEST(PlanSoKernel, UserMistakes) {
  kprof_test::TempDir dir;
  std::string cu = dir.file("k.cu");
  write_file_atomic(cu, "extern \"C\" void solve(const float* x, float* y, int n) {}\n");
  SoKernelOptions opts;
  opts.kernel_path = cu;
  std::string e = usage_error_of([&] { plan_so_kernel(opts); });
  EXPECT_NE(e.find("missing dimension --n="), std::string::npos) << e;
  EXPECT_NE(e.find("--n=VALUE"), std::string::npos) << e;
  opts.dims = dims_of({{"n", "1.5"}});
  e = usage_error_of([&] { plan_so_kernel(opts); });
  EXPECT_NE(e.find("not an integer"), std::string::npos) << e;
  opts.dims = dims_of({{"n", "3000000000"}});
  e = usage_error_of([&] { plan_so_kernel(opts); });
  EXPECT_NE(e.find("does not fit"), std::string::npos) << e;
  opts.dims = dims_of({{"n", "16"}});
  opts.size_exprs = {"z=n"};
  e = usage_error_of([&] { plan_so_kernel(opts); });
  EXPECT_NE(e.find("no buffer named 'z'"), std::string::npos) << e;
  opts.size_exprs.clear();
  opts.kernel_path = dir.file("k.so");
  e = usage_error_of([&] { plan_so_kernel(opts); });
  EXPECT_NE(e.find("--so"), std::string::npos) << e;
  opts.kernel_path = dir.file("missing.cu");
  usage_error_of([&] { plan_so_kernel(opts); });
}
