// The correctness check's rules for non-const buffers, on the GPU with real
// .so kernels and a reference computed on the host: a non-const buffer that neither side changes
// is an input and passes; one the kernel writes while the reference leaves it fails; an output
// the kernel skips is never written; a non-const index array never gets the sentinel. And a
// Python-style output whose pre-call contents already are the answer stays an output.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include "device/host_array.hpp"
#include "gpu/test_so_kernel_util.hpp"
#include "gpu_guard.hpp"
#include "kernel/so_kernel.hpp"
#include "stages/verify/check.hpp"

using namespace kprof;

namespace {

/// A reference computed on the host: `fn` gets host copies of every buffer (pre-call contents)
/// and changes the outputs in place, as an in-place ref.py would.
class HostReference final : public ReferenceRunner {
 public:
  explicit HostReference(std::function<void(std::vector<HostArray>&)> fn) : fn_(std::move(fn)) {}
  std::optional<double> atol() const override { return std::nullopt; }
  std::optional<double> rtol() const override { return std::nullopt; }
  std::string origin() const override { return "host reference"; }
  ReferenceOutputs run(const std::vector<BufferView>& tensors, const std::vector<uint8_t>&,
                       const std::vector<ScalarArg>&, const KernelInstance&, const RestoreCopies&) override {
    std::vector<HostArray> all;
    for (const auto& t : tensors) all.push_back(copy_to_host(t.name, t.dtype, t.count, t.ptr));
    fn_(all);
    ReferenceOutputs out;
    for (size_t i = 0; i < tensors.size(); ++i)
      if (tensors[i].is_output) out.outputs.push_back(all[i]);
    return out;
  }

 private:
  std::function<void(std::vector<HostArray>&)> fn_;
};

void set_f32(HostArray& a, size_t i, float v) { std::memcpy(a.bytes.data() + 4 * i, &v, 4); }

CheckResult check(const std::string& kernel, size_t n, HostReference& ref) {
  std::string cu = kprof_test::built_test_kernel(kernel);
  SoKernelOptions o;
  o.kernel_path = cu;
  o.dims.set("N", std::to_string(n));
  auto inst = load_so_kernel(o);
  CheckOptions co;
  co.trials = 2;
  return run_check(
      *inst, [&]() -> ReferenceRunner& { return ref; }, co);
}

/// C = A + B; A and B left as they were.
HostReference add_reference() {
  return HostReference([](std::vector<HostArray>& b) {
    for (size_t i = 0; i < b[2].count; ++i) set_f32(b[2], i, float(b[0].at(i)) + float(b[1].at(i)));
  });
}

/// A stand-in for a Python kernel (triton) over device memory of its own: A and B from the seed,
/// and C, like a torch.empty() output that torch's caching allocator took from an earlier
/// reference result of the same seed, already holding A + B. call() writes A + B +
/// `error` into C, or nothing when `writes` is false.
class StaleOutputKernel final : public KernelInstance {
 public:
  StaleOutputKernel(size_t n, float error, bool writes) : n_(n), error_(error), writes_(writes) {
    for (auto& p : ptr_) cuda_check(cudaMalloc(&p, n * 4), "cudaMalloc");
  }
  ~StaleOutputKernel() override {
    for (auto* p : ptr_) cudaFree(p);
  }
  Implementation implementation() const override { return Implementation::Triton; }
  std::string signature() const override { return "run_kernel(A, B, C)"; }
  void prepare(uint64_t seed) override {
    std::vector<float> a(n_), b(n_), c(n_);
    out_.resize(n_);
    for (size_t i = 0; i < n_; ++i) {
      a[i] = float((i * 7 + seed) % 97) - 48.0f;
      b[i] = float((i * 13 + seed) % 89) * 0.5f;
      c[i] = a[i] + b[i];
      out_[i] = c[i] + error_;
    }
    upload(0, a);
    upload(1, b);
    upload(2, c);
  }
  std::vector<BufferView> buffers() const override {
    return {{"A", DType::F32, n_, ptr_[0], false},
            {"B", DType::F32, n_, ptr_[1], false},
            {"C", DType::F32, n_, ptr_[2], true}};
  }
  std::vector<ScalarArg> scalars() const override { return {}; }
  void call() override {
    if (writes_) upload(2, out_);
  }

 private:
  void upload(int i, const std::vector<float>& v) {
    cuda_check(cudaMemcpy(ptr_[i], v.data(), n_ * 4, cudaMemcpyHostToDevice), "upload");
  }
  size_t n_;
  float error_;
  bool writes_;
  void* ptr_[3] = {nullptr, nullptr, nullptr};
  std::vector<float> out_;
};

CheckResult check_stale(StaleOutputKernel& k, HostReference& ref) {
  CheckOptions co;
  co.atol = 1e-2;
  return run_check(
      k, [&]() -> ReferenceRunner& { return ref; }, co);
}

const OutputComparison& output(const CheckResult& r, const std::string& name) {
  for (const auto& c : r.trials.at(0).outputs)
    if (c.name == name) return c;
  throw std::runtime_error("no output " + name);
}

}  // namespace

TEST(CheckRulesGpu, NonConstInputsThatNobodyChangesPass) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  HostReference ref = add_reference();
  CheckResult r = check("nonconst_add", 100000, ref);
  ASSERT_FALSE(r.fault.has_value());
  EXPECT_TRUE(r.pass);
  EXPECT_EQ(r.treated_as_inputs, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(output(r, "A").role, BufferRole::UnchangedInput);
  EXPECT_EQ(output(r, "C").role, BufferRole::Output);
  EXPECT_EQ(output(r, "C").never_written, 0u);
}

TEST(CheckRulesGpu, AKernelWritingANonConstInputTheReferenceLeavesFails) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  HostReference ref = add_reference();
  CheckResult r = check("nonconst_writes_input", 100000, ref);
  EXPECT_FALSE(r.pass);
  const OutputComparison& a = output(r, "A");
  EXPECT_EQ(a.role, BufferRole::WrittenInput);
  EXPECT_FALSE(a.pass);
  EXPECT_NE(a.reason.find("the reference leaves 'A' unchanged"), std::string::npos) << a.reason;
  EXPECT_TRUE(output(r, "C").pass);
  EXPECT_EQ(r.treated_as_inputs, (std::vector<std::string>{"B"}));
}

TEST(CheckRulesGpu, AnOutputTheKernelSkipsIsNeverWritten) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  HostReference ref = add_reference();
  CheckResult r = check("nonconst_skips_output", 100000, ref);
  EXPECT_FALSE(r.pass);
  const OutputComparison& c = output(r, "C");
  EXPECT_EQ(c.never_written, 50000u);
  EXPECT_NE(c.reason.find("never written"), std::string::npos);
  EXPECT_TRUE(r.precision.empty());  // never-written is not a precision question
}

TEST(CheckRulesGpu, ANonConstIndexArrayNeverGetsTheSentinel) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  HostReference ref([](std::vector<HostArray>& b) {  // out[i] = in[idx[i]]
    for (size_t i = 0; i < b[2].count; ++i) set_f32(b[2], i, float(b[1].at(static_cast<size_t>(b[0].at(i)))));
  });
  CheckResult r = check("nonconst_gather", 4096, ref);
  ASSERT_FALSE(r.fault.has_value()) << r.fault->message;  // a sentinel index would fault the gather
  EXPECT_TRUE(r.pass);
  EXPECT_EQ(r.treated_as_inputs, (std::vector<std::string>{"idx"}));
}

TEST(CheckRulesGpu, AnOutputThatAlreadyHoldsTheAnswerIsStillAnOutput) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  HostReference ref = add_reference();
  StaleOutputKernel wrong(4096, 0.25f, true);  // errs by 0.25: fails --atol 1e-2
  CheckResult r = check_stale(wrong, ref);
  ASSERT_FALSE(r.fault.has_value()) << r.fault->message;
  EXPECT_FALSE(r.pass);
  const OutputComparison& c = output(r, "C");
  EXPECT_EQ(c.role, BufferRole::Output);
  EXPECT_EQ(c.reason.find("leaves 'C' unchanged"), std::string::npos) << c.reason;
  StaleOutputKernel right(4096, 0.0f, true);
  EXPECT_TRUE(check_stale(right, ref).pass);
}

TEST(CheckRulesGpu, AKernelThatWritesNothingIntoAStaleAnswerFails) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  HostReference ref = add_reference();
  StaleOutputKernel idle(4096, 0.0f, false);
  CheckResult r = check_stale(idle, ref);
  ASSERT_FALSE(r.fault.has_value()) << r.fault->message;
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(output(r, "C").never_written, 4096u);
  EXPECT_EQ(output(r, "C").role, BufferRole::Output);  // not "input: unchanged", a PASS
  EXPECT_TRUE(r.treated_as_inputs.empty());
}

TEST(CheckRulesGpu, AKernelWrongOnItsRepeatCallFails) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  HostReference ref = add_reference();
  CheckResult r = check("right_once", 100000, ref);
  ASSERT_FALSE(r.fault.has_value());
  EXPECT_FALSE(r.pass);
  ASSERT_FALSE(r.trials.empty());
  EXPECT_TRUE(output(r, "C").pass);  // the first call was right
  ASSERT_EQ(r.trials[0].repeat.size(), 1u);
  EXPECT_FALSE(r.trials[0].repeat[0].pass);
  EXPECT_NE(r.trials[0].repeat[0].reason.find("a second call on the same inputs differs"), std::string::npos)
      << r.trials[0].repeat[0].reason;
  EXPECT_TRUE(r.expected.empty());  // no trial passed: no answer kept for the timing's check
}

TEST(CheckRulesGpu, APassingCheckKeepsEachTrialsAnswer) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  HostReference ref = add_reference();
  CheckResult r = check("vadd", 100000, ref);
  ASSERT_TRUE(r.pass);
  ASSERT_EQ(r.expected.size(), 2u);  // --trials 2
  EXPECT_EQ(r.expected[1].seed, r.trials[1].seed);
  EXPECT_EQ(r.expected[0].names, std::vector<std::string>{"C"});
  ASSERT_EQ(r.trials[0].repeat.size(), 1u);
  EXPECT_TRUE(r.trials[0].repeat[0].pass);
  // The timing's last outputs against the answer of their seed.
  auto same = compare_with_expected(r.expected[1], {"C"}, r.expected[1].values);
  ASSERT_EQ(same.size(), 1u);
  EXPECT_TRUE(same[0].pass);
  auto other = compare_with_expected(r.expected[1], {"C"}, r.expected[0].values);
  ASSERT_EQ(other.size(), 1u);
  EXPECT_FALSE(other[0].pass);  // trial 0's answer is not trial 1's
}
