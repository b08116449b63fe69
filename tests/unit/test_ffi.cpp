// libffi calls of solve(): every argument must arrive at its exact C type, checked against a real
// C shared library built at test time that records what it received.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "core/error.hpp"
#include "kernel/ffi_call.hpp"
#include "kernel/library.hpp"
#include "kernel/signature.hpp"
#include "unit/test_ffi_util.hpp"

using namespace kprof;
using kprof_test::TempDir;

namespace {

void never_called() { ADD_FAILURE() << "an FfiCall with unset arguments must not call"; }

const char* kRecorderSource = R"(
#include <stddef.h>
#include <stdint.h>
static float* r_out; static const double* r_in; static int r_i; static long r_l; static size_t r_z;
static float r_f; static double r_d; static unsigned r_u; static int r_calls;
void solve(float* out, const double* in, int i, long l, size_t z, float f, double d, unsigned u) {
  r_out = out; r_in = in; r_i = i; r_l = l; r_z = z; r_f = f; r_d = d; r_u = u; ++r_calls;
  out[0] = (float)(in[0] * 2.0);
}
void get_record(float** out, const double** in, int* i, long* l, size_t* z, float* f, double* d, unsigned* u,
                int* calls) {
  *out = r_out; *in = r_in; *i = r_i; *l = r_l; *z = r_z; *f = r_f; *d = r_d; *u = r_u; *calls = r_calls;
}
/* More arguments than registers (x86-64: 6 integer, 8 vector), mixed widths, so some go on the stack. */
static double m_sum_f; static long long m_check; static void* m_p1; static void* m_p2;
void many(float a0, float a1, float a2, float a3, float a4, float a5, float a6, float a7, float a8, float a9,
          int8_t b, short c, unsigned char e, long long g, double d0, double d1, double d2, void* p1, void* p2,
          int h, uint64_t k, unsigned short s) {
  m_sum_f = (double)a0 + a1 * 2 + a2 * 3 + a3 * 4 + a4 * 5 + a5 * 6 + a6 * 7 + a7 * 8 + a8 * 9 + a9 * 10
            + d0 * 100 + d1 * 1000 + d2 * 10000;
  m_check = (long long)b * 1 + (long long)c * 1000 + (long long)e * 1000000 + g + (long long)h * 7
            + (long long)(k % 1000003) * 13 + (long long)s * 17;
  m_p1 = p1; m_p2 = p2;
}
void get_many(double* sum_f, long long* check, void** p1, void** p2) {
  *sum_f = m_sum_f; *check = m_check; *p1 = m_p1; *p2 = m_p2;
}
)";

const char* kRecorderSignature =
    "extern \"C\" void solve(float* out, const double* in, int i, long l, size_t z, float f, double d, "
    "unsigned u);";

const char* kManySignature =
    "extern \"C\" void solve(float a0, float a1, float a2, float a3, float a4, float a5, float a6, float a7,"
    " float a8, float a9, int8_t b, short c, unsigned char e, long long g, double d0, double d1, double d2,"
    " float* p1, const int* p2, int h, uint64_t k, unsigned short s);";

class FfiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string cc = kprof_test::c_compiler();
    if (cc.empty()) GTEST_SKIP() << "needs a C compiler (cc) to build the test library";
    so_ = kprof_test::build_shared_library(dir_, "recorder", kRecorderSource, cc, "c");
    ASSERT_FALSE(so_.empty());
    lib_ = KernelLibrary::open(so_, "test hint");
  }
  TempDir dir_;
  std::string so_;
  std::unique_ptr<KernelLibrary> lib_;
};

Dim dim(const std::string& name, const std::string& text) {
  Dims d;
  d.set(name, text);
  return d.get(name);
}

}  // namespace

TEST_F(FfiTest, EveryArgumentArrivesAtItsExactType) {
  FfiCall call(parse_solve_signature(kRecorderSignature));
  ASSERT_EQ(call.arity(), 8u);
  float out[1] = {0};
  double in[1] = {21.25};
  call.set_pointer(0, out);
  call.set_pointer(1, in);
  call.set_int(2, -123456);
  call.set_int(3, 0x123456789ALL);                      // needs all 64 bits of a long
  call.set_scalar(4, dim("z", "9223372036854775813"));  // 2^63 + 5: needs an unsigned 64-bit size_t
  call.set_float(5, 0.1);                               // must arrive as the float 0.1f, not a double
  call.set_float(6, 1e300);                             // does not fit a float
  call.set_scalar(7, dim("u", "4000000000"));           // > INT32_MAX: needs unsigned
  call.call(lib_->solve());

  using Get = void (*)(float**, const double**, int*, long*, size_t*, float*, double*, unsigned*, int*);
  auto get = reinterpret_cast<Get>(lib_->symbol("get_record"));
  ASSERT_NE(get, nullptr);
  float* r_out = nullptr;
  const double* r_in = nullptr;
  int i = 0, calls = 0;
  long l = 0;
  size_t z = 0;
  float f = 0;
  double d = 0;
  unsigned u = 0;
  get(&r_out, &r_in, &i, &l, &z, &f, &d, &u, &calls);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(r_out, out);
  EXPECT_EQ(r_in, in);
  EXPECT_EQ(i, -123456);
  EXPECT_EQ(l, 0x123456789AL);
  EXPECT_EQ(z, (size_t{1} << 63) + 5);
  EXPECT_EQ(f, 0.1f);
  EXPECT_EQ(d, 1e300);
  EXPECT_EQ(u, 4000000000u);
  EXPECT_EQ(out[0], 42.5f);  // the callee used both pointers
}

TEST_F(FfiTest, ManyArgumentsSpillToTheStackCorrectly) {
  FfiCall call(parse_solve_signature(kManySignature));
  ASSERT_EQ(call.arity(), 22u);
  double expect_f = 0;
  for (int i = 0; i < 10; ++i) {
    float v = 0.5f + static_cast<float>(i);
    call.set_float(static_cast<size_t>(i), v);
    expect_f += static_cast<double>(v) * (i + 1);
  }
  call.set_int(10, -7);
  call.set_int(11, -300);
  call.set_int(12, 200);
  call.set_int(13, 5000000000LL);
  call.set_float(14, 0.25);
  call.set_float(15, -1.5);
  call.set_float(16, 3.0);
  int a = 0, b = 0;
  call.set_pointer(17, &a);
  call.set_pointer(18, &b);
  call.set_int(19, -99);
  call.set_scalar(20, dim("k", "18446744073709551615"));  // UINT64_MAX
  call.set_int(21, 65535);
  call.call(lib_->symbol("many"));
  expect_f += 0.25 * 100 + -1.5 * 1000 + 3.0 * 10000;
  long long expect_check = -7 + -300LL * 1000 + 200LL * 1000000 + 5000000000LL + -99LL * 7 +
                           static_cast<long long>(UINT64_MAX % 1000003) * 13 + 65535LL * 17;

  using Get = void (*)(double*, long long*, void**, void**);
  auto get = reinterpret_cast<Get>(lib_->symbol("get_many"));
  ASSERT_NE(get, nullptr);
  double sum_f = 0;
  long long check = 0;
  void *p1 = nullptr, *p2 = nullptr;
  get(&sum_f, &check, &p1, &p2);
  EXPECT_DOUBLE_EQ(sum_f, expect_f);
  EXPECT_EQ(check, expect_check);
  EXPECT_EQ(p1, &a);
  EXPECT_EQ(p2, &b);
}

TEST(FfiCall, IntegerRangesAreCheckedPerCType) {
  FfiCall call(
      parse_solve_signature("extern \"C\" void solve(int i, unsigned u, int8_t c, size_t z, short s, float f);"));
  auto expect_usage = [](auto&& fn, const std::string& needle) {
    try {
      fn();
      ADD_FAILURE() << "expected an error mentioning " << needle;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::Usage);
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_usage([&] { call.set_int(0, int64_t{1} << 31); }, "'int i'");
  expect_usage([&] { call.set_int(1, -1); }, "'unsigned u'");
  expect_usage([&] { call.set_int(2, 128); }, "-128..127");
  expect_usage([&] { call.set_scalar(3, dim("z", "-5")); }, "'size_t z'");
  expect_usage([&] { call.set_scalar(3, dim("z", "18446744073709551616")); }, "--z=");
  expect_usage([&] { call.set_scalar(0, dim("i", "1.5")); }, "not an integer");
  expect_usage([&] { call.set_float(4, 2.5); }, "is an integer");
  // In range: no error.
  call.set_int(0, INT32_MIN);
  call.set_int(2, -128);
  call.set_scalar(3, dim("z", "0"));
  call.set_float(4, -32768.0);
  call.set_scalar(5, dim("f", "3"));  // an integer literal is fine for a float
  call.set_int(1, 4294967295LL);
}

TEST(FfiCall, ProgrammingErrorsAreLogicErrors) {
  FfiCall call(parse_solve_signature("extern \"C\" void solve(float* p, int n);"));
  EXPECT_THROW(call.set_pointer(1, nullptr), std::logic_error);
  EXPECT_THROW(call.set_int(0, 1), std::logic_error);
  call.set_pointer(0, nullptr);
  EXPECT_THROW(call.call(reinterpret_cast<void*>(&never_called)), std::logic_error);  // n never set
}

TEST(FfiCall, HalfScalarsCannotBePassed) {
  Signature sig;
  Param p;
  p.name = "h";
  p.dtype = DType::F16;
  p.type_text = "half";
  sig.params.push_back(p);
  EXPECT_THROW(FfiCall{sig}, Error);
}
