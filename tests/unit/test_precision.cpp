// Telling reduced-precision arithmetic from a bug: real float32 matrix products
// computed here on the CPU, once exactly and once with their inputs rounded to TF32 or bfloat16,
// compared with compare_output and diagnosed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "stages/verify/precision.hpp"

using namespace kprof;

namespace {

/// Rounds a float to `bits` explicit mantissa bits (round to nearest even), as TF32 (10) and
/// bfloat16 (7) hold them.
float round_mantissa(float x, int bits) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  const int drop = 23 - bits;
  const uint32_t half = 1u << (drop - 1), mask = (1u << drop) - 1;
  uint32_t rest = u & mask;
  u &= ~mask;
  if (rest > half || (rest == half && (u >> drop & 1))) u += 1u << drop;
  float y;
  std::memcpy(&y, &u, 4);
  return y;
}

HostArray f32(const std::string& name, const std::vector<float>& v) {
  HostArray a;
  a.name = name;
  a.dtype = DType::F32;
  a.count = v.size();
  a.bytes.resize(v.size() * 4);
  std::memcpy(a.bytes.data(), v.data(), a.bytes.size());
  return a;
}

/// C = A x B (M x K by K x N, normal(0,1) inputs of `seed`), with the inputs rounded to
/// `bits` mantissa bits first when bits < 23; accumulated in double, stored as float.
std::vector<float> gemm(int M, int K, int N, unsigned seed, int bits) {
  std::mt19937 g(seed);
  std::normal_distribution<float> d;
  std::vector<float> A(size_t(M) * K), B(size_t(K) * N), C(size_t(M) * N);
  for (auto& a : A) a = d(g);
  for (auto& b : B) b = d(g);
  if (bits < 23) {
    for (auto& a : A) a = round_mantissa(a, bits);
    for (auto& b : B) b = round_mantissa(b, bits);
  }
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int k = 0; k < K; ++k) s += double(A[size_t(i) * K + k]) * B[size_t(k) * N + j];
      C[size_t(i) * N + j] = float(s);
    }
  return C;
}

OutputComparison compare_gemm(int bits, unsigned seed, const Tolerance& tol = default_tolerance(DType::F32)) {
  auto exact = gemm(64, 512, 64, seed, 23);
  auto reduced = gemm(64, 512, 64, seed, bits);
  return compare_output(f32("C", reduced), f32("C", exact), tol);
}

}  // namespace

TEST(Precision, Tf32ProductsAreRecognisedAndAnAcceptingAtolIsSuggested) {
  OutputComparison t1 = compare_gemm(10, 1), t2 = compare_gemm(10, 2);
  ASSERT_FALSE(t1.pass);  // float32 default tolerance rejects TF32 inputs at K = 512
  auto d = diagnose_precision({&t1, &t2});
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(d->consistent) << d->why;
  EXPECT_EQ(d->format, "TF32 or float16");
  EXPECT_EQ(d->unit_roundoff, kUnitRoundoffTf32Fp16);
  EXPECT_EQ(d->trials, 2);
  ASSERT_TRUE(d->suggested_atol.has_value());
  EXPECT_LT(*d->suggested_atol, std::min(t1.ref_max_abs, t2.ref_max_abs));  // no "atol dwarfs" warning
  // The suggestion accepts both trials, and a third seed too (the 2x margin).
  Tolerance tol{*d->suggested_atol, t1.tol.rtol, "suggested"};
  EXPECT_TRUE(compare_gemm(10, 1, tol).pass);
  EXPECT_TRUE(compare_gemm(10, 2, tol).pass);
  EXPECT_TRUE(compare_gemm(10, 3, tol).pass);
  std::string line = precision_line(*d);
  EXPECT_NE(line.find("TF32 or float16"), std::string::npos) << line;
  EXPECT_NE(line.find("--atol"), std::string::npos) << line;
  EXPECT_NE(line.find("stays FAIL"), std::string::npos) << line;
}

TEST(Precision, Bfloat16ProductsAreToldFromTf32) {
  OutputComparison t = compare_gemm(7, 4);
  auto d = diagnose_precision({&t});
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(d->consistent) << d->why;
  EXPECT_EQ(d->format, "bfloat16");
  EXPECT_EQ(d->unit_roundoff, kUnitRoundoffBf16);
}

TEST(Precision, AFewWrongElementsAreNotReducedPrecision) {
  auto exact = gemm(64, 512, 64, 5, 23);
  auto bad = exact;
  for (size_t i = 0; i < 64; ++i) bad[i] += 0.05f;  // one wrong row of 64
  OutputComparison c = compare_output(f32("C", bad), f32("C", exact), default_tolerance(DType::F32));
  ASSERT_FALSE(c.pass);
  auto d = diagnose_precision({&c});
  ASSERT_TRUE(d.has_value());
  EXPECT_FALSE(d->consistent);
  EXPECT_FALSE(d->suggested_atol.has_value());
  EXPECT_NE(precision_line(*d).find("not consistent"), std::string::npos);
}

TEST(Precision, ALargeErrorEverywhereIsNotReducedPrecision) {
  auto exact = gemm(32, 256, 32, 6, 23);
  auto wrong = exact;
  std::mt19937 g(9);
  std::normal_distribution<float> n;
  for (auto& w : wrong) w += n(g) * 3.0f;  // a wrong result: error comparable to the values
  OutputComparison c = compare_output(f32("C", wrong), f32("C", exact), default_tolerance(DType::F32));
  auto d = diagnose_precision({&c});
  ASSERT_TRUE(d.has_value());
  EXPECT_FALSE(d->consistent);
  EXPECT_NE(d->why.find("more than 4 u"), std::string::npos) << d->why;
}

TEST(Precision, NothingToDiagnoseForPassesNeverWrittenOrHalfOutputs) {
  OutputComparison pass = compare_gemm(23, 7);
  ASSERT_TRUE(pass.pass);
  EXPECT_FALSE(diagnose_precision({&pass}).has_value());
  OutputComparison unwritten = compare_gemm(10, 7);
  unwritten.never_written = 3;
  EXPECT_FALSE(diagnose_precision({&unwritten}).has_value());
  OutputComparison half = compare_gemm(10, 7);
  half.dtype = DType::F16;
  EXPECT_FALSE(diagnose_precision({&half}).has_value());
  EXPECT_FALSE(diagnose_precision({}).has_value());
}
